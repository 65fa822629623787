// The service as production runs it, on one machine: API processes (bin/api.ts) and worker processes
// (bin/worker.ts) as separate children, sharing one PostgreSQL schema, one Temporal server and one configuration,
// with the simulators in this process (fault injection at hand). Used by the chaos and scale-out tests and by
// `npm run bench:onboarding`; no vitest here.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import path from 'node:path';
import { devCertificate } from '../../platform/crypto/dev-certificates';
import { loadConfig, type Config } from '../../platform/config';
import { startSimulators, type SimulatorFaults, type Simulators } from '../../simulators';
import { dropSchema, openDb, type Db } from '../../platform/store/db';
import { migrate } from '../../platform/store/migrate';
import { SCOPES, createApiKey, createWorkspace } from '../../platform/store/workspaces';
import { createOperator } from '../../domain/operators/credentials';
import { operationFor } from '../../api/operations';
import { findTemporalCli } from './cli';
import { startDevServer, type DevServer } from './dev-server';
import { freePorts } from './ports';
import { spawnService, type ServiceProcess } from './service-process';
import { bundleWorkflows } from '../../worker/create-worker';

export interface Cluster {
  db: Db;
  dbUrl: string;
  sims: Simulators;
  /** The configuration every process loads (the same environment). */
  config: Config;
  env: Record<string, string>;
  apiKey: string;
  /** An operator's credential (decide, admin): the decisions are theirs. */
  operator: string;
  apiUrls: string[];
  apis: ServiceProcess[];
  workers: ServiceProcess[];
  startWorker(extraEnv?: Record<string, string>): Promise<ServiceProcess>;
  close(): Promise<void>;
}

/**
 * A Temporal dev server of our own, persisted to a file (so it can be restarted without losing anything) unless
 * `inMemory`.
 */
export async function ownDevServer(
  dir: string,
  o: { inMemory?: boolean } = {},
): Promise<DevServer & { restart(): Promise<void> }> {
  const [port, uiPort] = await freePorts(2);
  const opts = {
    cli: findTemporalCli(),
    ...(!o.inMemory && { dbFile: path.join(dir, 'temporal.db') }),
    address: `127.0.0.1:${port}`,
    uiPort: uiPort!,
    namespace: 'default',
    logFile: path.join(dir, 'temporal.log'),
  };
  let server = await startDevServer(opts);
  return {
    get address() {
      return opts.address;
    },
    get uiUrl() {
      return server.uiUrl;
    },
    get pid() {
      return server.pid;
    },
    get processGroup() {
      return server.processGroup;
    },
    stop: () => server.stop(),
    async restart() {
      await server.stop();
      server = await startDevServer(opts);
    },
  };
}

/** A decision policy without four eyes: the test and benchmark stacks' parties are made-up companies. */
export const ONE_APPROVAL_POLICY = fileURLToPath(new URL('./one-approval-policy.json', import.meta.url));

/**
 * A fresh schema in PostgreSQL ($TEST_DATABASE_URL, or the local server), migrated, with its URL for children. The
 * children's connections carry the schema's name as their application_name (pg_stat_activity tells them apart from
 * other schemas' in the same database, and from this process's `db`).
 */
export async function freshSchema(): Promise<{ db: Db; url: string; drop(): Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `c_${crypto.randomBytes(6).toString('hex')}`;
  const db = await openDb({ url: base, schema });
  await migrate(db);
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  url.searchParams.set('application_name', schema);
  return {
    db,
    url: url.toString(),
    drop: async () => {
      await dropSchema(db, schema);
      await db.close();
    },
  };
}

/**
 * Starts `apis` API processes and `workers` worker processes against one new PostgreSQL schema and the Temporal
 * server at `temporalAddress`. Every process gets the same environment but its own API port.
 */
export async function startCluster(opts: {
  temporalAddress: string;
  apis?: number;
  workers?: number;
  faults?: SimulatorFaults;
  env?: Record<string, string>;
}): Promise<Cluster> {
  const { db, url: dbUrl, drop } = await freshSchema();
  const sims = await startSimulators({ host: '127.0.0.1', faults: opts.faults });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-cluster-'));
  // Certificates made once, before any process starts: all of them must sign with the same keys.
  const certs = path.join(dataDir, 'certs');
  devCertificate(certs, 'smp-dev', 'SMP development (not trusted)');
  devCertificate(certs, 'ap-dev', 'AP development (not trusted)');
  devCertificate(certs, 'mandate-seal', 'Cluster PA (development seal)');
  // The workflow bundle built once, as the Dockerfile does: workers (re)start in a second, without webpack.
  const bundleFile = path.join(dataDir, 'workflows.js');
  fs.writeFileSync(bundleFile, (await bundleWorkflows()).code);
  const apiPorts = await freePorts(opts.apis ?? 1);
  const apiUrls = apiPorts.map((p) => `http://127.0.0.1:${p}`);
  // Unique per cluster (clusters may share a server), as long as production's `party-registration`: the name is in
  // every task and most history events, and the onboarding benchmark weighs them.
  const taskQueue = `cluster-${crypto.randomBytes(5).toString('hex')}`;
  const env: Record<string, string> = {
    ...sims.env,
    DATABASE_URL: dbUrl,
    DATA_DIR: dataDir,
    WORKFLOW_BUNDLE_FILE: bundleFile,
    DATA_ENCRYPTION_KEYS: `cluster:${crypto.randomBytes(32).toString('base64')}`,
    TEMPORAL_ADDRESS: opts.temporalAddress,
    TEMPORAL_TASK_QUEUE: taskQueue,
    // Its own deployment, whose workers each make a new build current once (a versioned deploy: README).
    TEMPORAL_DEPLOYMENT_NAME: taskQueue,
    WORKER_MAKE_CURRENT: 'true',
    SMP_PUBLIC_URL: `${apiUrls[0]}/smp`,
    APPROVAL_DEADLINE: '1h',
    // One approval each: its parties are made-up companies the Annuaire does not know (four eyes would name them all).
    DECISION_POLICY_FILE: ONE_APPROVAL_POLICY,
    RATE_LIMIT_PER_MINUTE: '1000000',
    // The simulators take any rate: the steps' paces (the Annuaire's, Peppol's quotas) are not what a cluster measures.
    ANNUAIRE_STEPS_PER_S: '1000',
    PEPPOL_STEPS_PER_S: '1000',
    LOG_LEVEL: 'info',
    ...opts.env,
  };
  sims.directory.setSmpUrl(`${apiUrls[0]}/smp`);
  const config = loadConfig(env);
  const ws = await createWorkspace(db, 'cluster');
  const { secret: apiKey } = await createApiKey(db, ws.id, { name: 'cluster', scopes: [...SCOPES] });
  const { credential: operator } = await createOperator(db, null, {
    name: 'Cluster operator',
    roles: ['decide', 'admin'],
  });

  const workers: ServiceProcess[] = [];
  const startWorker = async (extraEnv: Record<string, string> = {}) => {
    const w = await spawnService(
      `worker-${workers.length + 1}`,
      'bin/worker.ts',
      { ...env, ...extraEnv },
      'worker running',
    );
    workers.push(w);
    return w;
  };
  const apis = await Promise.all(
    apiPorts.map((port, i) =>
      spawnService(
        `api-${i + 1}`,
        'bin/api.ts',
        { ...env, API_PORT: String(port), PUBLIC_BASE_URL: apiUrls[i]! },
        'API listening',
      ),
    ),
  );
  for (let i = 0; i < (opts.workers ?? 1); i++) await startWorker();

  return {
    db,
    dbUrl,
    sims,
    config,
    env,
    apiKey,
    operator,
    apiUrls,
    apis,
    workers,
    startWorker,
    async close() {
      await Promise.all([...apis, ...workers].map((p) => p.kill('SIGTERM'))); // SIGKILL after 15 s
      await sims.close();
      await drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The API's JSON answers, as the drivers read them (any shape). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ApiJson = any;

/** A JSON call to one of the cluster's APIs as the route's caller: the workspace's key, or the operator's credential. */
export async function callApi(
  c: Cluster,
  method: string,
  p: string,
  body?: unknown,
  apiIndex = 0,
): Promise<{ status: number; body: ApiJson; headers: Headers }> {
  const res = await fetch(c.apiUrls[apiIndex]! + p, {
    method,
    headers: {
      authorization: `Bearer ${operationFor(method, p.split('?')[0]!)?.operator ? c.operator : c.apiKey}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}
