// Prometheus metrics of this process (prom-client's default registry): HTTP latency, jobs by status, activity
// outcomes, plus Node's own. The API serves them at /metrics; a separate worker process at WORKER_METRICS_PORT.
// Temporal's SDK metrics (task slots, polls, latencies) come from its Rust core on TEMPORAL_METRICS_ADDRESS.
import http from 'node:http';
import client from 'prom-client';

export const registry = client.register;
client.collectDefaultMetrics({ register: registry });

export const httpDuration = new client.Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP requests by method, route pattern and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});

export const activityOutcomes = new client.Counter({
  name: 'activity_executions_total',
  help: 'Activity attempts by provider and outcome (ok, failed)',
  labelNames: ['provider', 'outcome'] as const,
});

// Jobs by status are read from the store at scrape time: the store, not a process, knows them all.
export type JobCounter = () => Promise<{ status: string; n: number }[]>;
/** One counter per store (keyed by it): two apps on one database count its jobs once. */
const jobCounters = new Map<object, JobCounter>();
new client.Gauge({
  name: 'jobs',
  help: 'Jobs by status (from the store)',
  labelNames: ['status'] as const,
  async collect() {
    this.reset();
    for (const count of jobCounters.values()) {
      try {
        for (const r of await count()) this.inc({ status: r.status }, r.n);
      } catch {
        // This scrape goes without (a database failover, a store closed by its owner); the next one tries again.
      }
    }
  },
});

/** Counts a store's jobs in the `jobs` gauge (e.g. platform/store/jobs.ts countJobsByStatus); returns the undo. */
export function watchJobs(store: object, count: JobCounter): () => void {
  jobCounters.set(store, count);
  return () => jobCounters.delete(store);
}

// Drift the nightly reconciliation found and has not closed, by kind; and what its runs did, by kind and outcome.
export type DriftCounter = () => Promise<Record<string, number>>;
const driftCounters = new Map<object, DriftCounter>();
new client.Gauge({
  name: 'reconciliation_open_findings',
  help: 'Open findings of the nightly reconciliation by kind of drift (from the store)',
  labelNames: ['kind'] as const,
  async collect() {
    this.reset();
    for (const count of driftCounters.values()) {
      try {
        for (const [kind, n] of Object.entries(await count())) this.inc({ kind }, n);
      } catch {
        // As for jobs: this scrape goes without.
      }
    }
  },
});
export const reconciliationFindings = new client.Counter({
  name: 'reconciliation_findings_total',
  help: 'Findings seen by reconciliation runs in this process, by kind of drift',
  labelNames: ['kind'] as const,
});
export const reconciliationActions = new client.Counter({
  name: 'reconciliation_actions_total',
  help: 'What reconciliation runs in this process did about their findings, by outcome',
  labelNames: ['outcome'] as const,
});

/** Counts a store's open findings in `reconciliation_open_findings`; returns the undo. */
export function watchDrift(store: object, count: DriftCounter): () => void {
  driftCounters.set(store, count);
  return () => driftCounters.delete(store);
}

/** A bare metrics listener, for a worker running without the API. */
export function serveMetrics(port: number, host = '0.0.0.0'): http.Server {
  return http
    .createServer(async (req, res) => {
      if (req.url !== '/metrics') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': registry.contentType }).end(await registry.metrics());
    })
    .listen(port, host);
}
