// Migration 1763841300000 renamed the tables `agreements` and `superseded_agreements` to `mandates` and
// `superseded_mandates`, leaving views under the old names for the build before it, which runs against the migrated
// schema during a deploy. Its statements, written as it writes them, reach the tables through the views. Goes with
// the views, in a later release.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../platform/store/db';
import { insertEntry } from '../../../platform/store/entries';
import { getMandate } from '../../../platform/store/mandates';
import { createWorkspace } from '../../../platform/store/workspaces';
import { freshDb } from '../../support/harness';
import { makeSiren, party } from '../../../bin/stack/sample-parties';

const engines = ['pglite', ...(process.env.TEST_DATABASE_URL ? ['postgres' as const] : [])] as const;

describe.each(engines)("the previous build's mandate tables, as views, on %s", (engine) => {
  let db: Db;
  let drop: () => Promise<void>;

  beforeAll(async () => ({ db, drop } = await freshDb(engine)));
  afterAll(() => drop?.());

  it('reads, locks, inserts on conflict, updates and deletes the mandates through the old names', async () => {
    const ws = (await createWorkspace(db, 'acme')).id;
    const siren = makeSiren();
    const entry = await insertEntry(db, {
      id: crypto.randomUUID(),
      workspaceId: ws,
      docSchema: 'org/party',
      data: party(siren),
      siren,
    });
    const [first, second] = [`${siren}_0000_20261129_01`, `${siren}_0000_20261130_01`];
    // Issued, then issued again for a new job (the previous build's issueMandateEffect: an upsert on the entry).
    const issue = (job: string, number: string) =>
      db.query(
        `INSERT INTO agreements (entry_id, job_id, mandate_number, issued_on) VALUES ($1, $2, $3, current_date)
         ON CONFLICT (entry_id) DO UPDATE SET job_id = EXCLUDED.job_id, mandate_number = EXCLUDED.mandate_number`,
        [entry.id, job, number],
      );
    await issue(crypto.randomUUID(), first);
    await db.query(`UPDATE agreements SET signed_pdf = '\\x25504446', signed_via = 'typed' WHERE entry_id = $1`, [
      entry.id,
    ]);
    await db.query(
      `INSERT INTO superseded_agreements (mandate_number, entry_id, job_id, issued_on, signed_pdf, superseded_by)
       SELECT mandate_number, entry_id, job_id, issued_on, signed_pdf, $2 FROM agreements WHERE entry_id = $1
       ON CONFLICT (mandate_number) DO NOTHING`,
      [entry.id, second],
    );
    await issue(crypto.randomUUID(), second);
    const locked = await db.tx(async (q) => {
      const { rows } = await q.query<{ mandate_number: string }>(
        'SELECT mandate_number FROM agreements WHERE entry_id = $1 FOR UPDATE',
        [entry.id],
      );
      return rows[0]?.mandate_number;
    });
    expect(locked).toBe(second);
    expect(await getMandate(db, entry.id)).toMatchObject({ mandate_number: second, signed: true });
    const kept = await db.query('SELECT mandate_number FROM superseded_mandates WHERE superseded_by = $1', [second]);
    expect(kept.rows).toEqual([{ mandate_number: first }]);

    await db.query('DELETE FROM superseded_agreements s USING agreements a WHERE s.superseded_by = a.mandate_number');
    expect((await db.query('SELECT 1 FROM superseded_mandates WHERE entry_id = $1', [entry.id])).rows).toEqual([]);
  });
});
