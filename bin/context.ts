// Shared process wiring: the store (migrated) and the Temporal connection, from one config.
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import type { Tracing } from '../lib/tracing';
import type { Config } from '../config';
import { withStoredSecrets } from '../config/stored-secrets';
import { dataBoxFromConfig } from '../crypto/data-box';
import { openDb, type Db } from '../store/db';
import { migrate } from '../store/migrate';

export async function openStore(config: Config, log: (msg: string) => void): Promise<Db> {
  const db = await openDb(config.DATABASE_URL ? { url: config.DATABASE_URL } : { dataDir: path.join(config.dataDir, 'pglite') });
  const applied = await migrate(db);
  log(`store: ${db.engine === 'pglite' ? `PGlite in ${path.join(config.dataDir, 'pglite')}` : 'PostgreSQL (DATABASE_URL)'}` +
    (applied.length ? `, applied migrations ${applied.join(', ')}` : ', schema up to date'));
  return db;
}

/** The Temporal client; with tracing on, workflows it starts or signals continue the caller's trace. */
export async function connectTemporal(config: Config, tracing?: Tracing): Promise<Client> {
  const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  return new Client({
    connection, namespace: config.TEMPORAL_NAMESPACE,
    ...(tracing && { interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } }),
  });
}

/** The configuration with the platform secrets kept in the encrypted store (config/stored-secrets.ts) applied. */
export async function withSecrets(config: Config, db: Db, log: (msg: string) => void): Promise<Config> {
  const { config: effective, used } = await withStoredSecrets(config, db, dataBoxFromConfig(config));
  if (used.length) log(`secrets from the encrypted store: ${used.join(', ')}`);
  return effective;
}
