// Versioned schema migrations (node-pg-migrate, plain SQL files in platform/store/migrations).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import type { Db } from './db';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Applies the migrations not yet applied; with `upTo` (a migration's timestamp), only those up to it. */
export async function migrate(db: Db, opts: { log?: (msg: string) => void; upTo?: number } = {}): Promise<string[]> {
  return db.session(async (client) => {
    // Migrate the schema the connection is set to (tests isolate themselves in their own schema).
    const { rows } = await client.query<{ schema: string }>('SELECT current_schema() AS schema');
    const schema = rows[0]!.schema;
    const applied = await runner({
      dbClient: client as never,
      dir: MIGRATIONS_DIR,
      direction: 'up',
      ...(opts.upTo !== undefined && { count: opts.upTo, timestamp: true }),
      migrationsTable: 'schema_migrations',
      schema,
      migrationsSchema: schema,
      checkOrder: true,
      singleTransaction: true,
      // API and worker processes starting together all migrate: the later ones wait for the first, then find
      // nothing left to apply (the default, 'fail', made them exit).
      advisoryLockMode: 'wait',
      log: opts.log ?? (() => undefined),
      logger: { debug() {}, info: opts.log ?? (() => undefined), warn: console.warn, error: console.error },
    });
    return applied.map((m) => m.name);
  });
}
