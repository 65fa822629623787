// A job's cancellation in the store: the reason the API sets before it asks the workflow, the row lock that orders
// it against an approval decision, and a job cancelled before its workflow started.
import { CANCELLED } from '../../contract/job';
import type { Db, Queryable } from './db';
import { recordState } from './entry-states';
import { jobStatusCtes, jobStatusParams } from './jobs';

/** Why the job is being cancelled, set by the API before it asks the workflow; the cancel activity reads it. */
export async function setCancelReason(db: Queryable, jobId: string, reason: string): Promise<void> {
  // The first reason stays: of callers cancelling at once, the first is the one the workflow takes.
  await db.query('UPDATE jobs SET cancel_reason = COALESCE(cancel_reason, $2) WHERE id = $1 AND completed_at IS NULL', [
    jobId,
    reason,
  ]);
}

/**
 * Claims a job's cancellation in the store, against the operator's approval: the job's row locked (as
 * approval-decisions.ts decisionEffect locks it), then, unless an approval of its submission is recorded, its reason
 * set (the first stays). Of a cancellation and an approval racing, the one whose transaction takes the row first wins;
 * the other, reading after it, sees it. `approvedBy`: the approval's decision id when one came first (nothing was written).
 */
export async function claimCancellation(db: Db, jobId: string, reason: string): Promise<{ approvedBy?: string }> {
  return db.tx(async (q) => {
    await q.query('SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE', [jobId]);
    // A statement of its own, after the lock: it reads what a decision that held the row committed.
    const { rows } = await q.query<{ id: string }>(
      `SELECT d.id FROM mandates a JOIN approval_decisions d ON d.id = a.decision_id
       WHERE a.job_id = $1 AND a.voided_at IS NULL AND d.approved`,
      [jobId],
    );
    if (rows[0]) return { approvedBy: rows[0].id };
    await setCancelReason(q, jobId, reason);
    return {};
  });
}

/** The workflow refused the cancellation: the job goes on, without the reason this caller set. */
export async function clearCancelReason(db: Queryable, jobId: string, reason: string): Promise<void> {
  await db.query('UPDATE jobs SET cancel_reason = NULL WHERE id = $1 AND cancel_reason = $2 AND completed_at IS NULL', [
    jobId,
    reason,
  ]);
}

/**
 * Cancels a job whose workflow never started (still QUEUED): the job ends CANCEL with its reason, the party is
 * `cancelled`. False when it is no longer QUEUED.
 */
export async function cancelQueuedJob(db: Db, jobId: string): Promise<boolean> {
  return db.tx(async (q) => {
    const { rows } = await q.query<{ silo_entry_id: string; cancel_reason: string | null }>(
      `SELECT silo_entry_id, cancel_reason FROM jobs WHERE id = $1 AND status = 'QUEUED' FOR UPDATE`,
      [jobId],
    );
    const job = rows[0];
    if (!job) return false;
    const faults = [
      { provider: 'transform', code: CANCELLED, message: job.cancel_reason ?? 'cancelled through the API' },
    ];
    await q.query(`WITH ${jobStatusCtes(1)} SELECT 1`, jobStatusParams(jobId, { status: 'CANCEL', faults }));
    await recordState(q, { entryId: job.silo_entry_id, state: 'cancelled', jobId, stepId: 'queued' });
    return true;
  });
}

/** The reason given with a cancellation request, if any. */
export async function cancelReasonOf(q: Queryable, jobId: string): Promise<string | null> {
  const { rows } = await q.query<{ cancel_reason: string | null }>('SELECT cancel_reason FROM jobs WHERE id = $1', [
    jobId,
  ]);
  return rows[0]?.cancel_reason ?? null;
}
