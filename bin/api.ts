// Production API process (stateless; scale horizontally). Needs DATABASE_URL and a reachable Temporal.
import { sealKeyFromConfig } from '../domain/mandate-document/seal-key';
import { dataBoxFromConfig } from '../platform/crypto/data-box';
import { createApp } from '../api/app';
import { signingDeps } from '../api/signing-deps';
import { runChecksAgain } from '../domain/mandate/recheck';
import { serveInternalMetrics } from '../api/metrics-endpoint';
import { runQueuedJobSweeper } from '../domain/jobs/job-sweeper';
import { runWebhookDispatcher } from '../domain/events/dispatch';
import { ensureSchedules } from '../domain/schedules';
import { ConfigError, assertApiConfigSafe, loadConfig } from '../platform/config';
import { createLogger } from '../platform/observability/logger';
import { connectTemporal, openStore, untilReachable, withSecrets } from './context';
import { lifecycle, unlessAborted } from './stack/lifecycle';
import { tracingFromEnv } from '../platform/observability/tracing';
import { Runtime } from '@temporalio/worker';
import { InspectionPool, poolOptions } from '../domain/inspection';
import { answerMalformedRequests } from '../web/http/malformed-requests';
import type { Server } from 'node:http';

const baseConfig = (() => {
  try {
    const c = loadConfig();
    assertApiConfigSafe(c);
    return c;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`[api] refusing to start: ${err.message}`);
    process.exit(1);
  }
})();
const log = createLogger(baseConfig.LOG_LEVEL, 'pa-api');
// First of all: a SIGINT/SIGTERM at any moment stops what has started, in reverse order (bin/stack/lifecycle.ts):
// exit 0 once listening, 130/143 when it interrupts the start-up (waiting for Temporal, for one).
const life = lifecycle(
  (m) => log.info(m),
  (m) => log.error(m),
);
try {
  // PostgreSQL's connection may be left behind on a signal; PGlite's opening, not (lifecycle.ts): it is waited for.
  const opening = openStore(baseConfig, (m) => log.info(m));
  const db = await (baseConfig.DATABASE_URL ? unlessAborted(opening, life.signal, (late) => late.close()) : opening);
  life.onStop('store', () => db.close());
  life.check();
  const config = await withSecrets(baseConfig, db, (m) => log.info(m));
  const tracing = tracingFromEnv('pa-api');
  if (tracing) life.onStop('tracing', () => tracing.shutdown()); // the last spans
  // The client's native runtime, with no worker to stop on signals: this process stops itself (lifecycle).
  Runtime.install({ shutdownSignals: [] });
  const temporal = await unlessAborted(
    untilReachable(
      () => connectTemporal(config, tracing),
      (m) => log.warn(m),
    ),
    life.signal,
    (late) => late.connection.close(),
  );
  life.onStop('Temporal client', () => temporal.connection.close());
  // Uploaded files are decoded and checked in these child processes, off the event loop.
  const inspector = new InspectionPool(poolOptions(config));
  life.onStop('inspection pool', () => inspector.close());
  const jobDeps = {
    db,
    log,
    temporal,
    config,
    box: dataBoxFromConfig(config),
    sealKey: sealKeyFromConfig(config),
    inspector,
  };
  const signing = signingDeps(jobDeps);
  const app = createApp({ ...jobDeps, signing });
  await ensureSchedules(jobDeps);
  const stopSweeper = runQueuedJobSweeper(jobDeps);
  const stopDispatcher = runWebhookDispatcher(jobDeps);
  const stopRecheck = runChecksAgain(signing);
  life.onStop('job sweeper, webhook dispatcher and director re-checks', () => {
    stopSweeper();
    stopDispatcher();
    stopRecheck();
  });
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(config.API_PORT, config.API_HOST, () => resolve(s));
    s.once('error', reject);
    answerMalformedRequests(s);
  });
  life.onStop('API server', () => new Promise((resolve) => server.close(resolve)));
  const metricsServer = await serveInternalMetrics(config);
  if (metricsServer) {
    life.onStop('metrics server', () => new Promise((resolve) => metricsServer.close(resolve)));
    log.info({ host: config.METRICS_HOST, port: config.METRICS_PORT }, 'metrics listening (internal)');
  }
  life.check();
  log.info({ url: config.publicBaseUrl }, 'API listening');
  log.flush(); // what supervisors wait for
  life.ready();
} catch (err) {
  await life.fail(err);
}
