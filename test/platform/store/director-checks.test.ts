// The director check and the signature's evidence stored with a submission's checks, on both stores: read back as
// written, filtered on by the queue, and said "not checked" for a submission recorded before (migration
// 1763842100000); an automatic decision keeps its rule and the facts it read.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../platform/store/db';
import { createWorkspace } from '../../../platform/store/workspaces';
import { migrate } from '../../../platform/store/migrate';
import { checksOfSubmission, recordChecks } from '../../../platform/store/submission-checks';
import { reviewQueue } from '../../../platform/store/review-queue';
import { decisionEffect, decisionsOf, overturnAutomatic } from '../../../platform/store/approval-decisions';
import { runEffect } from '../../../platform/store/statement-effect';
import { freshDb } from '../../support/harness';

const BEFORE = 1763842000000;
const engines = ['pglite', ...(process.env.TEST_DATABASE_URL ? ['postgres' as const] : [])] as const;

describe.each(engines)('director checks, on %s', (engine) => {
  let db: Db;
  let drop: () => Promise<void>;
  let ws: string;
  const earlier = { entryId: crypto.randomUUID(), jobId: crypto.randomUUID(), mandateNumber: '552032534_old' };

  async function pending(name: string, at: { entryId: string; jobId: string; mandateNumber: string }) {
    await db.query(
      `INSERT INTO entries (id, workspace_id, doc_schema, data, siren, state) VALUES ($1, $2, 'party', $3, '552032534', 'submitted')`,
      [at.entryId, ws, JSON.stringify({ name })],
    );
    await db.query(
      `INSERT INTO mandates (entry_id, job_id, mandate_number, issued_on, signed_via, signed_at, submitted_at)
       VALUES ($1, $2, $3, '2026-11-01', 'typed', now(), now())`,
      [at.entryId, at.jobId, at.mandateNumber],
    );
  }

  beforeAll(async () => {
    ({ db, drop } = await freshDb(engine, BEFORE));
    ws = (await createWorkspace(db, 'acme')).id;
    await pending('before', earlier);
    await db.query(
      `INSERT INTO submission_checks (entry_id, job_id, mandate_number, purpose, round, evidence, decide_by, directory)
       VALUES ($1, $2, $3, 'registration', 1, 'in-app', now() + interval '30 days', '{"outcome": "unchecked", "reason": "x"}')`,
      [earlier.entryId, earlier.jobId, earlier.mandateNumber],
    );
    await migrate(db);
  });
  afterAll(() => drop?.());

  const checks = (signer: { result: 'pass' | 'fail' | 'unavailable' } & Record<string, unknown>) => ({
    purpose: 'registration',
    round: 1,
    evidence: 'digital-signature',
    directory: { outcome: 'found', record: { siren: '552032534', name: 'X', status: 'active' }, other_platforms: [] },
    nameMatches: true,
    companyActive: true,
    signer,
    signature: {
      kind: 'digital-signature',
      certificate: { subject: 'CN=Élodie Martin', trusted: true },
      names_signer: true,
      director: signer,
    },
  });

  it('a submission recorded before says its signer was not checked', async () => {
    expect((await checksOfSubmission(db, earlier))?.signer).toEqual({
      result: 'unavailable',
      code: 'not-checked',
      reason: 'submitted before the director check was recorded',
    });
    expect((await checksOfSubmission(db, earlier))?.signature).toBeNull();
  });

  it('reads back as recorded, and the queue filters on the result', async () => {
    const pass = { entryId: crypto.randomUUID(), jobId: crypto.randomUUID(), mandateNumber: '552032534_pass' };
    const fail = { entryId: crypto.randomUUID(), jobId: crypto.randomUUID(), mandateNumber: '552032534_fail' };
    await pending('pass', pass);
    await pending('fail', fail);
    const passed = checks({ result: 'pass', director: { name: 'Élodie MARTIN', role: 'Présidente' } });
    await recordChecks(db, { ...pass, deadline: '30d' }, passed);
    await recordChecks(
      db,
      { ...fail, deadline: '30d' },
      checks({ result: 'fail', code: 'not-listed', reason: 'not among them' }),
    );
    expect(await checksOfSubmission(db, pass)).toMatchObject({ signer: passed.signer, signature: passed.signature });
    const only = async (signerCheck: 'pass' | 'fail' | 'unavailable') =>
      (await reviewQueue(db, { signerCheck }, { order: 'oldest', limit: 10 })).list.map((c) => c.entry_id);
    expect(await only('pass')).toEqual([pass.entryId]);
    expect(await only('fail')).toEqual([fail.entryId]);
    expect(await only('unavailable')).toEqual([earlier.entryId]);
  });

  it('an automatic decision keeps its rule, its version and the facts it read', async () => {
    const at = { entryId: crypto.randomUUID(), jobId: crypto.randomUUID(), mandateNumber: '552032534_auto' };
    await pending('auto', at);
    const inputs = { conditions: { 'certificate-names-director': true }, checks: checks({ result: 'pass' }) };
    const claimed = await runEffect(
      db,
      decisionEffect(
        {
          id: crypto.randomUUID(),
          entryId: at.entryId,
          jobId: at.jobId,
          approved: true,
          decidedAt: new Date().toISOString(),
          automatic: { rule: 'director-certificate', version: 4, inputs, holdUntil: '2030-01-01T00:00:00.000Z' },
        },
        { type: 'job-cancelled', message: 'cancelled' },
      ),
    );
    expect(claimed).toBe(true);
    expect(await decisionsOf(db, at.entryId, at.jobId, { deciders: true })).toEqual([
      expect.objectContaining({
        decision: 'approved',
        decided_by: null,
        automatic: {
          rule: 'director-certificate',
          version: 4,
          inputs,
          overturnable_until: '2029-12-31T23:59:50.000Z', // 10 s early
          runs_on_at: '2030-01-01T00:00:00.000Z',
        },
      }),
    ]);
  });

  it('an operator overturns an automatic approval within its window, not after', async () => {
    const approve = async (name: string, holdUntil: Date) => {
      const at = { entryId: crypto.randomUUID(), jobId: crypto.randomUUID(), mandateNumber: `552032534_${name}` };
      await pending(name, at);
      await db.query(
        `INSERT INTO jobs (id, workspace_id, workflow_id, silo_entry_id, definition, status, workflow_type)
         VALUES ($1, $2, $3, $4, '{}', 'WAIT', 'runJob')`,
        [at.jobId, ws, crypto.randomUUID(), at.entryId],
      );
      const id = crypto.randomUUID();
      const automatic = { rule: 'r', version: 1, inputs: {}, holdUntil: holdUntil.toISOString() };
      const decidedAt = new Date(holdUntil.getTime() - 3_600_000).toISOString();
      await runEffect(
        db,
        decisionEffect(
          { id, entryId: at.entryId, jobId: at.jobId, approved: true, decidedAt, automatic },
          { type: 'job-cancelled', message: 'cancelled' },
        ),
      );
      return { ...at, id };
    };
    const operator = crypto.randomUUID();
    await db.query(`INSERT INTO operators (id, name, roles) VALUES ($1, 'Olivia', ARRAY['decide'])`, [operator]);
    const rejection = (at: { entryId: string; jobId: string }) => ({
      ...at,
      id: crypto.randomUUID(),
      operatorId: operator,
      reason: 'the certificate was revoked',
      decidedAt: new Date().toISOString(),
    });
    const open = await approve('open', new Date(Date.now() + 3_600_000));
    const r = rejection(open);
    expect(await overturnAutomatic(db, r)).toEqual({ overturned: open.id });
    expect(await decisionsOf(db, open.entryId, open.jobId, { deciders: true })).toEqual([
      expect.objectContaining({
        decision: 'rejected',
        overturns: open.id,
        decided_by: expect.objectContaining({ id: operator }),
      }),
      expect.objectContaining({
        decision: 'approved',
        decided_by: null,
        automatic: expect.objectContaining({ rule: 'r' }),
      }),
    ]);
    // The rejection is now the submission's decision: it is not overturned twice.
    expect(await overturnAutomatic(db, rejection(open))).toBeUndefined();
    // Past its window (or within its last seconds), an automatic approval stands.
    const closed = await approve('closed', new Date(Date.now() + 5_000));
    expect(await overturnAutomatic(db, rejection(closed))).toEqual({
      closed: { decidedAt: expect.any(String), until: expect.any(String) },
    });
  });
});
