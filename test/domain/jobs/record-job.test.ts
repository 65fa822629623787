// A job start meeting the end of the entry's previous job, on PostgreSQL (PGlite runs one transaction at a time and
// cannot deadlock): the two transactions lock the entry and the previous job in opposite orders.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../../platform/store/db';
import { insertEntry } from '../../../platform/store/entries';
import { createWorkspace } from '../../../platform/store/workspaces';
import { recordJob } from '../../../domain/jobs/record-job';
import { freshDb } from '../../support/harness';
import { makeSiren, party } from '../../../bin/stack/sample-parties';

const url = process.env.TEST_DATABASE_URL;

describe.runIf(url)('recording a job on PostgreSQL', () => {
  let db: Db;
  let other: Db; // a second pool: the transaction ending the previous job
  let drop: () => Promise<void>;
  let ws: string;

  beforeAll(async () => {
    const fresh = await freshDb('postgres');
    ({ db, drop } = fresh);
    other = await openDb({ url: fresh.url! });
    ws = (await createWorkspace(db, 'acme')).id;
  });
  afterAll(async () => {
    await other?.close();
    await drop?.();
  });

  const start = (entryId: string) =>
    recordJob(db, {
      id: crypto.randomUUID(),
      workspaceId: ws,
      workflowId: crypto.randomUUID(),
      workflowType: 'runDefinition',
      entryId,
      docSchema: 'org/party',
      definition: {
        steps: [{ id: 's', name: 'Set state', provider: 'silo.state', config: { state: 'x' } }],
        rescue: [],
      },
      args: {},
      tags: [],
      registers: false,
    });
  const deadlocks = async () =>
    Number(
      (await db.query<{ n: string }>('SELECT deadlocks AS n FROM pg_stat_database WHERE datname = current_database()'))
        .rows[0]!.n,
    );
  const waitingInserts = async () =>
    Number(
      (
        await db.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%INSERT INTO jobs%'`,
        )
      ).rows[0]!.n,
    );

  it('records the new job when PostgreSQL aborts its start for a deadlock with the end of the previous one', async () => {
    const siren = makeSiren();
    const entry = await insertEntry(db, {
      id: crypto.randomUUID(),
      workspaceId: ws,
      docSchema: 'org/party',
      data: party(siren),
      siren,
    });
    const previous = await start(entry.id);
    expect(previous).toMatchObject({ outcome: 'inserted' });
    const before = await deadlocks();

    let next: ReturnType<typeof start> | undefined;
    // The previous job ends as a step's statement ends it: the job first, then its entry.
    await other.tx(async (q) => {
      // This side waits longest before looking for a deadlock: PostgreSQL aborts the job start, which must be
      // run again rather than answered 500.
      await q.query(`SET LOCAL deadlock_timeout = '20s'`);
      await q.query(`UPDATE jobs SET completed_at = now(), status = 'OK' WHERE silo_entry_id = $1`, [entry.id]);
      next = start(entry.id); // locks the entry, then waits on the previous job in the one-active-job index
      const waitedSince = Date.now();
      while ((await waitingInserts()) === 0) {
        if (Date.now() - waitedSince > 10_000) throw new Error('the job start never waited on the previous job');
        await new Promise((r) => setTimeout(r, 20));
      }
      await q.query('UPDATE entries SET updated_at = now() WHERE id = $1', [entry.id]);
    });

    const result = await next!;
    expect(result).toMatchObject({ outcome: 'inserted' });
    expect(await deadlocks()).toBeGreaterThan(before); // the case it is about did happen
    const { rows } = await db.query<{ status: string }>(
      'SELECT status FROM jobs WHERE silo_entry_id = $1 ORDER BY created_at',
      [entry.id],
    );
    expect(rows.map((r) => r.status)).toEqual(['OK', 'QUEUED']);
  });
});
