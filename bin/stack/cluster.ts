// The service as production runs it, on one machine: API processes (bin/api.ts) and worker processes
// (bin/worker.ts) as separate children, sharing one PostgreSQL schema, one Temporal server and one configuration,
// with the simulators in this process (fault injection at hand). Used by the chaos and scale-out tests and by
// `npm run bench:onboarding`; no vitest here.
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
import { bundleWorkflows } from '../../worker/create-worker';

const REPO = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  /** The last lines it printed, for failure messages. */
  output(): string;
  /** Peak resident set size so far (VmHWM), in MB; undefined once it has exited. */
  peakRssMb(): number | undefined;
  /** Resident set size now (VmRSS), in MB; undefined once it has exited. */
  rssMb(): number | undefined;
  exited: Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

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

/** A field of /proc/<pid>/status in MB; undefined once the process has exited. */
export function memoryMb(pid: number, field: 'VmHWM' | 'VmRSS'): number | undefined {
  try {
    const kb = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Starts `script` and resolves once it has printed `ready` (an info log line: keep LOG_LEVEL at info or lower). */
export function spawnService(
  name: string,
  script: 'bin/api.ts' | 'bin/worker.ts',
  env: Record<string, string>,
  ready: string,
): Promise<ServiceProcess> {
  // CLUSTER_NODE_ARGS: extra node flags for every service process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env.CLUSTER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script], {
    cwd: REPO,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const proc: ServiceProcess = {
    name,
    child,
    exited,
    output: () => tail,
    peakRssMb: () => memoryMb(child.pid!, 'VmHWM'),
    rssMb: () => memoryMb(child.pid!, 'VmRSS'),
    async kill(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      tail = (tail + d).slice(-64_000); // logs arrive in batches of several KB: keep a few of them
      if (tail.includes(ready)) resolve(proc);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() =>
      reject(
        new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before "${ready}":\n${tail.slice(-4000)}`),
      ),
    );
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not print "${ready}" within 120 s:\n${tail.slice(-4000)}`));
    }, 120_000);
    void exited.then(() => clearTimeout(timer));
    child.stdout!.on('data', () => tail.includes(ready) && clearTimeout(timer));
  });
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
    RATE_LIMIT_PER_MINUTE: '1000000',
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
