// Processes starting together (two APIs, two workers) all migrate the same PostgreSQL schema at once: the later
// ones wait for the first and find nothing left to apply; none fails.
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openDb } from '../../../platform/store/db';
import { migrate } from '../../../platform/store/migrate';

describe('migrations started by several processes at once', () => {
  it('all succeed, and the schema is migrated once', async () => {
    const url = process.env.TEST_DATABASE_URL;
    if (!url)
      throw new Error('this test needs PostgreSQL: set TEST_DATABASE_URL (scripts/test.sh finds the local server)');
    const schema = `m_${crypto.randomBytes(6).toString('hex')}`;
    const dbs = [];
    for (let i = 0; i < 4; i++) dbs.push(await openDb({ url, schema })); // (opening creates the schema: one at a time)
    try {
      const applied = await Promise.all(dbs.map((db) => migrate(db)));
      const all = applied.flat();
      expect(all.length).toBeGreaterThan(0);
      expect(new Set(all).size).toBe(all.length); // each migration applied by exactly one of them
      const { rows } = await dbs[0]!.query<{ n: string }>('SELECT count(*) AS n FROM schema_migrations');
      expect(Number(rows[0]!.n)).toBe(all.length);
    } finally {
      await dbs[0]!.query(`DROP SCHEMA ${schema} CASCADE`);
      await Promise.all(dbs.map((db) => db.close()));
    }
  });
});
