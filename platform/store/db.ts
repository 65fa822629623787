// One query interface over the two PostgreSQL engines we run on: a real server (pg) or embedded PGlite.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';

export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: R[]; rowCount: number }>;
}

export interface Db extends Queryable {
  readonly engine: 'postgres' | 'pglite';
  /** Runs `fn` in one transaction; rolls back if it throws. */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /** Runs `fn` on one connection (session-level locks, migrations). */
  session<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /**
   * Notifications sent on `channel` (pg_notify) by any session, this process's included, until the returned stop.
   * `lost`: the subscription broke, and what was sent meanwhile is missed; it is made again (`ready` once back).
   */
  listen(channel: string, on: Listener): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface Listener {
  message(payload: string): void;
  ready(): void;
  lost(): void;
}

const RELISTEN_MS = 5_000;

export interface DbOptions {
  /** postgres://… for a real server; otherwise PGlite. */
  url?: string;
  /** PGlite data directory; in memory when absent. */
  dataDir?: string;
  /** Schema to create and use (tests isolate themselves this way). */
  schema?: string;
}

export async function openDb(opts: DbOptions): Promise<Db> {
  return opts.url ? openPostgres(opts.url, opts.schema) : openPglite(opts.dataDir, opts.schema);
}

async function openPostgres(url: string, schema?: string): Promise<Db> {
  if (schema) {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    await admin.end();
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    ...(schema ? { options: `-c search_path=${quoteIdent(schema)}` } : {}),
  });
  // A connection the server ends (a restart, a failover, pg_terminate_backend) emits an error on its client: idle, the
  // pool drops it and opens another when needed; checked out, the query in flight fails and its caller retries. Left
  // unheard, the error would end the process.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const prepared = preparedStatements();
  const listeners = new Set<() => Promise<void>>();
  const wrap = (c: pg.Pool | pg.PoolClient): Queryable => ({
    async query(sql, params) {
      const name = params?.length ? prepared.nameOf(sql) : undefined;
      try {
        const r = await c.query(name ? { name, text: sql, values: params } : { text: sql, values: params });
        return { rows: r.rows, rowCount: r.rowCount ?? 0 };
      } catch (err) {
        if (!name || !prepared.outdated(err, sql)) throw err;
        const r = await c.query(sql, params as unknown[]);
        return { rows: r.rows, rowCount: r.rowCount ?? 0 };
      }
    },
  });
  const session = async <T>(fn: (q: Queryable) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    try {
      return await fn(wrap(client));
    } finally {
      client.release();
    }
  };
  return {
    engine: 'postgres',
    ...wrap(pool),
    session,
    async tx(fn) {
      return session(async (q) => {
        await q.query('BEGIN');
        try {
          const result = await fn(q);
          await q.query('COMMIT');
          return result;
        } catch (err) {
          await q.query('ROLLBACK').catch(() => undefined);
          throw err;
        }
      });
    },
    async listen(channel, on) {
      const stop = listenOn(url, channel, on);
      listeners.add(stop);
      return async () => {
        listeners.delete(stop);
        await stop();
      };
    },
    async close() {
      await Promise.all([...listeners].map((stop) => stop()));
      await pool.end();
    },
  };
}

/** A connection of its own that LISTENs on `channel`, made again RELISTEN_MS after it fails or drops. */
function listenOn(url: string, channel: string, on: Listener): () => Promise<void> {
  let stopped = false;
  let current: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    const client = new pg.Client({ connectionString: url });
    let failed = false;
    const fail = () => {
      if (failed || stopped) return;
      failed = true;
      current = undefined;
      on.lost();
      retry = setTimeout(() => void connect(), RELISTEN_MS);
      retry.unref();
      client.end().catch(() => undefined);
    };
    client.on('error', fail);
    client.on('end', fail);
    client.on('notification', (n) => n.channel === channel && on.message(n.payload ?? ''));
    try {
      await client.connect();
      await client.query(`LISTEN ${quoteIdent(channel)}`);
    } catch {
      return fail();
    }
    if (stopped) return void client.end().catch(() => undefined);
    current = client;
    on.ready();
  };
  void connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await current?.end().catch(() => undefined);
  };
}

/**
 * Statements with parameters are prepared once per connection, named after their text: PostgreSQL then parses and
 * plans each of our short statements once instead of on every call, which was most of its CPU per statement.
 * (A pooler in transaction mode must keep them: README, production topology.) A statement whose result changed
 * shape under it (a migration by another process) fails with "cached plan must not change result type": it is run
 * unprepared from then on.
 */
function preparedStatements() {
  const names = new Map<string, string | undefined>();
  const MAX = 1000; // our statements are fixed texts; anything beyond this is not worth a name per connection
  return {
    nameOf(sql: string): string | undefined {
      if (names.has(sql)) return names.get(sql);
      const name =
        names.size < MAX ? `s${crypto.createHash('sha1').update(sql).digest('hex').slice(0, 20)}` : undefined;
      names.set(sql, name);
      return name;
    },
    outdated(err: unknown, sql: string): boolean {
      if (
        (err as { code?: string }).code !== '0A000' ||
        !/cached plan must not change result type/.test(String((err as Error).message))
      )
        return false;
      names.set(sql, undefined);
      return true;
    },
  };
}

async function openPglite(dataDir?: string, schema?: string): Promise<Db> {
  const unlock = dataDir ? lockDataDir(dataDir) : () => undefined;
  const lite = new PGlite(dataDir);
  await lite.waitReady;
  if (schema) {
    await lite.exec(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}; SET search_path TO ${quoteIdent(schema)}`);
  }
  // Without parameters we use the simple protocol, which (like pg) accepts several statements at once.
  const wrap = (c: Pick<PGlite, 'query' | 'exec'>): Queryable => ({
    async query(sql, params) {
      const r = params?.length ? await c.query(sql, params) : (await c.exec(sql)).at(-1);
      return { rows: (r?.rows ?? []) as never[], rowCount: r?.affectedRows ?? r?.rows.length ?? 0 };
    },
  });
  return {
    engine: 'pglite',
    ...wrap(lite),
    tx: (fn) => lite.transaction((t) => fn(wrap(t))),
    session: (fn) => fn(wrap(lite)),
    async listen(channel, on) {
      const stop = await lite.listen(channel, (payload) => on.message(payload));
      on.ready(); // in this process: it cannot drop
      return () => stop();
    },
    close: async () => {
      await lite.close();
      unlock();
    },
  };
}

// PGlite is single-process: a second process opening the same directory would corrupt it, so we refuse.
function lockDataDir(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockFile = path.join(dataDir, '.pa-lock');
  try {
    fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
  } catch {
    const holder = Number(fs.readFileSync(lockFile, 'utf8'));
    if (holder && holder !== process.pid && processAlive(holder)) {
      throw new Error(
        `the embedded database in ${dataDir} is in use by process ${holder} (is "npm start" running? stop it first)`,
      );
    }
    fs.writeFileSync(lockFile, String(process.pid)); // stale lock of a dead process
  }
  return () => fs.rmSync(lockFile, { force: true });
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`unsafe SQL identifier: ${name}`);
  return `"${name}"`;
}

/** A round trip to the database (the readiness probe). */
export async function ping(db: Queryable): Promise<void> {
  await db.query('SELECT 1');
}

/** Drops a schema and all it holds (a test's or a benchmark's own schema). */
export async function dropSchema(db: Queryable, schema: string): Promise<void> {
  await db.query(`DROP SCHEMA ${quoteIdent(schema)} CASCADE`);
}
