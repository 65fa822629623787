// Shared process wiring: the store (migrated) and the Temporal connection, from one config.
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { Config } from '../config';
import { openDb, type Db } from '../store/db';
import { migrate } from '../store/migrate';

export async function openStore(config: Config, log: (msg: string) => void): Promise<Db> {
  const db = await openDb(config.DATABASE_URL ? { url: config.DATABASE_URL } : { dataDir: path.join(config.dataDir, 'pglite') });
  const applied = await migrate(db);
  log(`store: ${db.engine === 'pglite' ? `PGlite in ${path.join(config.dataDir, 'pglite')}` : 'PostgreSQL (DATABASE_URL)'}` +
    (applied.length ? `, applied migrations ${applied.join(', ')}` : ', schema up to date'));
  return db;
}

export async function connectTemporal(config: Config): Promise<Client> {
  const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  return new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
}
