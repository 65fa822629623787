// Per-file test harness: a fresh store (PGlite in memory, or a throw-away PostgreSQL schema), a worker on a
// task queue of its own against the shared real dev server, and the HTTP API on an ephemeral port.
import { testSealKey } from './seal-key';
import { dataBoxFromConfig, type DataBox } from '../../platform/crypto/data-box';
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { inject } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../../api/app';
import { signingDeps, type SigningDeps } from '../../api/signing-deps';
import { loadConfig, type Config } from '../../platform/config';
import { startSimulators, type Simulators } from '../../simulators';
import { createLogger } from '../../platform/observability/logger';
import { openDb, type Db } from '../../platform/store/db';
import { migrate } from '../../platform/store/migrate';
import { SCOPES, createApiKey, createWorkspace, type Scope } from '../../platform/store/workspaces';
import { ONE_APPROVAL_POLICY } from '../../bin/stack/cluster';
import type { OperatorRole } from '../../platform/store/operators';
import { createOperator } from '../../domain/operators/credentials';
import { operationFor } from '../../api/operations';
import { createWorker } from '../../worker/create-worker';
import { makeCurrent } from '../../worker/versioning';

import { send } from './keyed-send';
import { runWebhookDispatcher } from '../../domain/events/dispatch';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { installTracing } from '../../platform/observability/tracing';
import { InspectionPool, poolOptions } from '../../domain/inspection';
import { answerMalformedRequests } from '../../web/http/malformed-requests';

export const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');

/** A migrated store: PGlite in memory, or a fresh schema of TEST_DATABASE_URL when `engine` is postgres. */
/** The same harness as another workspace's integrator: `key` on the integrators' routes, unless a call says. */
export function asWorkspace(h: Harness, key: string, workspaceId: string): Harness {
  return {
    ...h,
    apiKey: key,
    workspaceId,
    api: (method, path, body, k) =>
      h.api(method, path, body, k !== undefined || operationFor(method, path.split('?')[0]!)?.operator ? k : key),
  };
}

export async function freshDb(
  engine: 'pglite' | 'postgres' = 'pglite',
  /** Migrated only up to this migration's timestamp (a test of the next ones). */
  upTo?: number,
): Promise<{ db: Db; drop(): Promise<void>; url?: string }> {
  if (engine === 'pglite') {
    const db = await openDb({});
    await migrate(db, { upTo });
    return { db, drop: () => db.close() };
  }
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set');
  const schema = `t_${crypto.randomBytes(6).toString('hex')}`;
  const db = await openDb({ url, schema });
  await migrate(db, { upTo });
  const scoped = new URL(url);
  scoped.searchParams.set('options', `-c search_path=${schema}`);
  return {
    db,
    url: scoped.toString(), // the same schema, for another process
    async drop() {
      await db.query(`DROP SCHEMA ${schema} CASCADE`);
      await db.close();
    },
  };
}

export interface Harness {
  db: Db;
  box: DataBox;
  config: Config;
  /** The API's clients for the checks and its decision policy (the background re-checks take them). */
  signing: SigningDeps;
  sims: Simulators;
  client: Client;
  taskQueue: string;
  baseUrl: string;
  workspaceId: string;
  /** The workspace's key, every scope: the integrator. */
  apiKey: string;
  /** Operator A's credential (`decide`, `admin`), and operator B's (`decide`): the platform's compliance team. */
  operator: string;
  secondOperator: string;
  newKey(scopes?: Scope[], workspaceId?: string): Promise<string>;
  newOperator(roles: OperatorRole[], name?: string): Promise<string>;
  /**
   * A request as the route's own kind of caller unless `key` says (null: none): the workspace's key, or operator A
   * on the operators' routes (those that declare a role).
   */
  api(
    method: string,
    path: string,
    body?: unknown,
    key?: string | null,
  ): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

/** A harness whose worker runs in the test's process. */
export interface WorkerHarness extends Harness {
  /** The worker's connection, and its build (of the deployment TEMPORAL_DEPLOYMENT_NAME, the current one). */
  nativeConnection: NativeConnection;
  buildId: string;
  /** Stops the worker (a deploy test replaces it with another build's). */
  stopWorker(): Promise<void>;
}

export async function startHarness(
  opts: { approvalDeadline?: string; env?: Record<string, string>; tracing?: SpanExporter } = {},
): Promise<WorkerHarness> {
  const { db, drop } = await freshDb();
  // The public register's limit (7 a second per address) is tested on its own: every test's lookups come from here.
  const sims = await startSimulators({ host: '127.0.0.1', recherche: { rateLimitPerSecond: null } });
  const taskQueue = `test-${crypto.randomUUID()}`;
  const config = loadConfig({
    // A data dir of its own: its own development certificates.
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'pa-test-')),
    DATA_ENCRYPTION_KEYS: `test:${crypto.randomBytes(32).toString('base64')}`,
    APPROVAL_DEADLINE: opts.approvalDeadline ?? '1h',
    TEMPORAL_TASK_QUEUE: taskQueue,
    TEMPORAL_DEPLOYMENT_NAME: taskQueue, // a deployment of its own: making its build current moves no other test's runs
    // Tests drive many requests with one key; the limit itself is tested on its own app.
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_PER_IP_PER_MINUTE: '10000000',
    RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '10000000',
    WIZARD_RATE_LIMIT_PER_REF_PER_MINUTE: '1000000', // test/api/hostile-http.test.ts tests them
    WEBHOOK_RETRY_INITIAL: '200ms', // failed webhook deliveries retried quickly
    // The simulators take any rate; a test of the steps' pace sets its own.
    ANNUAIRE_STEPS_PER_S: '1000',
    PEPPOL_STEPS_PER_S: '1000',
    RECHERCHE_ENTREPRISES_RATE: '100',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', // the test subscribers listen on 127.0.0.1
    // One approval each (test/api/four-eyes.test.ts sets the default policy): most tests' companies are made up.
    DECISION_POLICY_FILE: ONE_APPROVAL_POLICY,
    ...sims.env,
    ...opts.env,
  });
  const address = inject('temporalAddress');
  const connection = await Connection.connect({ address });
  const tracing = opts.tracing && installTracing('test', opts.tracing);
  const client = new Client({
    connection,
    ...(tracing && { interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } }),
  });
  const nativeConnection = await NativeConnection.connect({ address });
  const { worker, buildId } = await createWorker({
    connection: nativeConnection,
    namespace: 'default',
    taskQueue,
    deps: { db, log, config },
    tracing,
  });
  const running = worker.run();
  // As the embedded stack: its build is the current one of its own deployment (one per harness: its task queue's).
  await makeCurrent(nativeConnection, {
    namespace: 'default',
    deploymentName: config.TEMPORAL_DEPLOYMENT_NAME,
    buildId,
  });

  const box = dataBoxFromConfig(config);
  const stopDispatcher = runWebhookDispatcher({ db, temporal: client, log, config }, 200);
  const inspector = new InspectionPool(poolOptions(config)); // INSPECT_* in opts.env: a pool of the test's own size
  const appDeps = { db, log, temporal: client, config, box, sealKey: testSealKey(), inspector };
  const signing = signingDeps(appDeps);
  const app = createApp({ ...appDeps, signing });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
    answerMalformedRequests(s);
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sims.directory.setSmpUrl(`${baseUrl}/smp`); // the Directory reads business cards back from our SMP
  sims.sml.setSmpUrl(config.SMP_ID, config.smpPublicUrl); // the SML's DNS points our participants at our SMP
  const ws = await createWorkspace(db, 'test');
  const { secret } = await createApiKey(db, ws.id, { name: 'test', scopes: [...SCOPES] });
  const newOperator = async (roles: OperatorRole[], name = 'Test operator') =>
    (await createOperator(db, null, { name, roles })).credential;
  const operatorA = await newOperator(['decide', 'admin'], 'Test operator A');
  const operatorB = await newOperator(['decide'], 'Test operator B');

  return {
    db,
    box,
    config,
    signing,
    sims,
    client,
    taskQueue,
    nativeConnection,
    buildId,
    async stopWorker() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
    baseUrl,
    workspaceId: ws.id,
    apiKey: secret,
    operator: operatorA,
    secondOperator: operatorB,
    newOperator,
    async newKey(scopes, workspaceId) {
      const wsId = workspaceId ?? (await createWorkspace(db, 'other')).id;
      return (await createApiKey(db, wsId, { name: 'extra', scopes })).secret;
    },
    async api(method, path, body, key = operationFor(method, path.split('?')[0]!)?.operator ? operatorA : secret) {
      // Every response a test sees must be one the OpenAPI document declares (send checks it).
      const { status, body: parsed, headers } = await send(path, body, { method, apiKey: key ?? undefined, baseUrl });
      return { status, body: parsed, headers };
    },
    async close() {
      stopDispatcher();
      await new Promise((r) => server.close(r));
      await inspector.close();
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await nativeConnection.close();
      await connection.close();
      await sims.close();
      await drop();
    },
  };
}

/** Polls `fn` until it returns a truthy value (or throws after `timeoutMs`). */
export async function eventually<T>(
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 30_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${last}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
