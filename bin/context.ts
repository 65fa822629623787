// Shared process wiring: the store (migrated) and the Temporal connection, from one config.
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import type { Tracing } from '../platform/observability/tracing';
import type { Config } from '../platform/config';
import { withStoredSecrets } from '../platform/store/platform-secrets';
import { dataBoxFromConfig } from '../platform/crypto/data-box';
import { openDb, type Db } from '../platform/store/db';
import { migrate } from '../platform/store/migrate';
import { keyScopeChanges } from '../platform/store/workspaces';

const OPERATORS_MIGRATION = '1763841400000_operators';

export async function openStore(config: Config, log: (msg: string) => void): Promise<Db> {
  const db = await openDb(
    config.DATABASE_URL ? { url: config.DATABASE_URL } : { dataDir: path.join(config.dataDir, 'pglite') },
  );
  const applied = await migrate(db);
  log(
    `store: ${db.engine === 'pglite' ? `PGlite in ${path.join(config.dataDir, 'pglite')}` : 'PostgreSQL (DATABASE_URL)'}` +
      (applied.length ? `, applied migrations ${applied.join(', ')}` : ', schema up to date'),
  );
  // The keys whose scopes that migration changed (approvals stripped: only operators decide), for whoever upgrades.
  if (applied.includes(OPERATORS_MIGRATION))
    for (const c of await keyScopeChanges(db))
      log(`store: API key ${c.key_id} (workspace ${c.workspace_id}): ${c.change}, because ${c.reason}`);
  return db;
}

/**
 * How to reach Temporal: plain gRPC to the dev server or a private cluster; TLS with an API key or a client
 * certificate for Temporal Cloud. The same options serve the client and the worker's native connection.
 */
export function temporalConnectionOptions(config: Config): {
  address: string;
  tls?: {
    clientCertPair?: { crt: Buffer; key: Buffer };
    serverRootCACertificate?: Buffer;
    serverNameOverride?: string;
  };
  apiKey?: string;
} {
  const { TEMPORAL_TLS_CERT_FILE: cert, TEMPORAL_TLS_KEY_FILE: key, TEMPORAL_API_KEY: apiKey } = config;
  const { TEMPORAL_TLS_CA_FILE: ca, TEMPORAL_TLS_SERVER_NAME: serverName } = config;
  if (!cert !== !key) throw new Error('TEMPORAL_TLS_CERT_FILE and TEMPORAL_TLS_KEY_FILE go together');
  const clientCertPair = cert && key ? { crt: fs.readFileSync(cert), key: fs.readFileSync(key) } : undefined;
  const tls = {
    ...(clientCertPair && { clientCertPair }),
    ...(ca && { serverRootCACertificate: fs.readFileSync(ca) }),
    ...(serverName && { serverNameOverride: serverName }),
  };
  return {
    address: config.TEMPORAL_ADDRESS,
    ...((Object.keys(tls).length > 0 || apiKey) && { tls }),
    ...(apiKey && { apiKey }),
  };
}

/**
 * The Temporal client; with tracing on, workflows it starts or signals continue the caller's trace. Over the SDK's
 * native (Rust) connection, as the worker's: a start costs the API about two thirds of the CPU it costs over grpc-js
 * (BENCHMARKS.md). In a process with a worker, call installSdkMetrics first: the native runtime is made once.
 */
export async function connectTemporal(config: Config, tracing?: Tracing): Promise<Client> {
  const connection = await NativeConnection.connect(temporalConnectionOptions(config));
  return new Client({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    ...(tracing && { interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } }),
  });
}

/**
 * Retries `connect` while Temporal is unreachable (a worker started before the server, or during a restart), for
 * up to `forMs`, backing off to 10 s between attempts; then gives up with the last error.
 */
export async function untilReachable<T>(
  connect: () => Promise<T>,
  log: (msg: string) => void,
  forMs = 120_000,
): Promise<T> {
  const deadline = Date.now() + forMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await connect();
    } catch (err) {
      if (Date.now() >= deadline) throw err;
      const waitMs = Math.min(1000 * 2 ** (attempt - 1), 10_000);
      log(`Temporal unreachable (${(err as Error).message}); trying again in ${waitMs / 1000} s`);
      await new Promise((r) => setTimeout(r, waitMs));
    }
  }
}

/** The configuration with the platform secrets kept in the encrypted store (platform/store/platform-secrets.ts) applied. */
export async function withSecrets(config: Config, db: Db, log: (msg: string) => void): Promise<Config> {
  const { config: effective, used } = await withStoredSecrets(config, db, dataBoxFromConfig(config));
  if (used.length) log(`secrets from the encrypted store: ${used.join(', ')}`);
  return effective;
}
