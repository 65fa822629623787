// Migration 1763841500000: submissions pending before the checks were recorded get what SQL can tell of them (what
// each is for, its round, its evidence, its deadline); the Annuaire's record is left to the review detail's lookup.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../platform/store/db';
import { createWorkspace } from '../../../platform/store/workspaces';
import { migrate } from '../../../platform/store/migrate';
import { freshDb } from '../../support/harness';

const BEFORE_CHECKS = 1763841400000;
const engines = ['pglite', ...(process.env.TEST_DATABASE_URL ? ['postgres' as const] : [])] as const;
const DAY_MS = 86_400_000;

describe.each(engines)('checks of the submissions already pending, on %s', (engine) => {
  let db: Db;
  let drop: () => Promise<void>;
  const waitStarted = new Date('2026-11-01T08:00:00Z');
  const submittedAt = new Date('2026-11-03T10:00:00Z');
  const ids = { resubmitted: crypto.randomUUID(), renewal: crypto.randomUUID(), decided: crypto.randomUUID() };

  beforeAll(async () => {
    ({ db, drop } = await freshDb(engine, BEFORE_CHECKS));
    const ws = (await createWorkspace(db, 'acme')).id;
    for (const [name, id] of Object.entries(ids)) {
      const job = crypto.randomUUID();
      await db.query(
        `INSERT INTO entries (id, workspace_id, doc_schema, data, siren, state) VALUES ($1, $2, 'party', $3, '552032534', $4)`,
        [id, ws, JSON.stringify({ name }), name === 'renewal' ? 'registered' : 'submitted'],
      );
      await db.query(
        `INSERT INTO jobs (id, workspace_id, workflow_id, silo_entry_id, definition, status, workflow_type)
         VALUES ($1, $2, $3, $4, '{}', 'WAIT', 'runJob')`,
        [job, ws, crypto.randomUUID(), id],
      );
      const upload = name === 'renewal';
      await db.query(
        `INSERT INTO mandates (entry_id, job_id, mandate_number, issued_on, signed_via, signed_at, submitted_at, upload_evidence)
         VALUES ($1, $2, $3, '2026-11-01', $4, $5, $5, $6)`,
        [id, job, `552032534_${name}`, upload ? 'upload' : 'typed', submittedAt, upload ? 'scan' : null],
      );
      if (name === 'resubmitted') {
        await db.query(
          `INSERT INTO job_intents (job_id, step_id, position, name, provider, created_at) VALUES ($1, 'wait', 2, 'wait', 'gov-fr', $2)`,
          [job, waitStarted],
        );
        await db.query(
          `INSERT INTO job_events (job_id, step_id, idx, status, code) VALUES ($1, 'wait', 1, 'WAIT', 'submitted')`,
          [job],
        );
        await db.query(
          `INSERT INTO approval_decisions (id, entry_id, job_id, approved, reason) VALUES ($1, $2, $3, false, 'blurred')`,
          [crypto.randomUUID(), id, job],
        );
      }
      if (name === 'decided') {
        const decision = crypto.randomUUID();
        await db.query(`INSERT INTO approval_decisions (id, entry_id, job_id, approved) VALUES ($1, $2, $3, true)`, [
          decision,
          id,
          job,
        ]);
        await db.query('UPDATE mandates SET decision_id = $2 WHERE entry_id = $1', [id, decision]);
      }
    }
    await migrate(db);
  });
  afterAll(() => drop?.());

  it('records what each pending submission is for, its round, evidence and deadline; none for a decided one', async () => {
    const { rows } = await db.query<{
      entry_id: string;
      purpose: string;
      round: number;
      evidence: string;
      decide_by: Date;
      directory: { outcome: string };
    }>('SELECT entry_id, purpose, round, evidence, decide_by, directory FROM submission_checks');
    const by = Object.fromEntries(rows.map((r) => [r.entry_id, r]));
    expect(rows).toHaveLength(2);
    expect(by[ids.resubmitted]).toMatchObject({ purpose: 'registration', round: 2, evidence: 'in-app' });
    expect(new Date(by[ids.resubmitted]!.decide_by).getTime()).toBe(waitStarted.getTime() + 30 * DAY_MS);
    expect(by[ids.renewal]).toMatchObject({ purpose: 'renewal', round: 1, evidence: 'scan' });
    expect(new Date(by[ids.renewal]!.decide_by).getTime()).toBe(submittedAt.getTime() + 30 * DAY_MS);
    expect(by[ids.resubmitted]!.directory.outcome).toBe('unchecked');
  });
});
