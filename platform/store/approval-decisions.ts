// Operators' decisions on submitted mandates: recorded, claimed for the job's submission (one operator wins),
// the review queue, each job's decisions kept when its signer submits again.
import type { Queryable } from './db';
import { bothEffects, type StatementEffect } from './statement-effect';
import { iso } from './rows';
import type { UploadEvidence } from './mandates';

export interface DecisionRecord {
  id: string;
  entryId: string;
  jobId: string;
  approved: boolean;
  reason?: string;
  /** The deciding operator; none for an automatic approval. */
  operatorId?: string;
  /** ISO time, as the API answers it. */
  decidedAt: string;
}

/**
 * A decision on the job's current submission as one statement's effect (statement-effect.ts): the job's row is
 * locked first (a cancellation locks it too, job-cancellation.ts claimCancellation: of the two racing, the first to
 * take it wins and the other sees what it did), then the submission is claimed (one operator wins) and the decision
 * written, with `also` if given (its CTEs may test `EXISTS (SELECT 1 FROM claim)`). Refused as `refusal` when the job
 * is being cancelled; its result says whether the submission was claimed (false: none to decide, or decided already;
 * nothing written).
 */
export function decisionEffect(
  d: DecisionRecord,
  refusal: { type: string; message: string },
  also?: StatementEffect,
): StatementEffect {
  const decision: StatementEffect = {
    params: [d.entryId, d.jobId, d.id, d.approved, d.reason ?? null, d.operatorId ?? null, d.decidedAt],
    requires: {
      ...refusal,
      // A job the store does not hold has no cancellation.
      holds: (first) =>
        `COALESCE((SELECT cancel_reason IS NULL FROM jobs WHERE id = $${first + 1}::uuid FOR UPDATE), true)`,
    },
    result: 'EXISTS (SELECT 1 FROM claim)',
    ctes: (first, guard) => {
      const [entry, job, id, approved, reason, by, at] = Array.from({ length: 7 }, (_, i) => `$${first + i}`);
      return `claim AS (
         UPDATE mandates SET decision_id = ${id}::uuid, updated_at = now()
         WHERE entry_id = ${entry}::uuid AND job_id = ${job}::uuid AND submitted_at IS NOT NULL
           AND decision_id IS NULL AND voided_at IS NULL AND ${guard}
         RETURNING entry_id
       ), decision AS (
         INSERT INTO approval_decisions (id, entry_id, job_id, approved, reason, operator_id, created_at)
         SELECT ${id}::uuid, ${entry}::uuid, ${job}::uuid, ${approved}::boolean, ${reason}::text, ${by}::uuid,
           ${at}::timestamptz FROM claim
       )`;
    },
  };
  return also ? { ...bothEffects(decision, also), result: decision.result } : decision;
}

/** Submissions awaiting a decision in every workspace, oldest first (the operators' review queue). */
export async function pendingSubmissions(db: Queryable, limit = 100) {
  const { rows } = await db.query<{
    entry_id: string;
    job_id: string;
    workspace_id: string;
    workspace_name: string;
    mandate_number: string;
    submitted_at: Date;
    siren: string | null;
    name: string | null;
    upload_evidence: UploadEvidence | null;
  }>(
    `SELECT a.entry_id, a.job_id, e.workspace_id, w.name AS workspace_name, a.mandate_number, a.submitted_at, e.siren,
       e.data->>'name' AS name, a.upload_evidence
     FROM mandates a JOIN entries e ON e.id = a.entry_id JOIN workspaces w ON w.id = e.workspace_id
     WHERE a.submitted_at IS NOT NULL AND a.decision_id IS NULL AND a.voided_at IS NULL
     ORDER BY a.submitted_at LIMIT $1`,
    [limit],
  );
  return rows.map(({ workspace_id, workspace_name, ...r }) => ({
    ...r,
    workspace: { id: workspace_id, name: workspace_name },
    submitted_at: iso(r.submitted_at),
  }));
}

/**
 * Every decision on this job's submissions, newest first: a rejected submission and its reason stay on record when
 * the signer submits again, for the operator deciding on the new one. `deciders`: with the operator who took each
 * (for the operators only: the signer's wizard never names them).
 */
export async function decisionsOf(db: Queryable, entryId: string, jobId: string, opts: { deciders?: boolean } = {}) {
  const { rows } = await db.query<{
    approved: boolean;
    reason: string | null;
    created_at: Date;
    operator_id: string | null;
    operator_name: string | null;
  }>(
    `SELECT d.approved, d.reason, d.created_at, d.operator_id, o.name AS operator_name
     FROM approval_decisions d LEFT JOIN operators o ON o.id = d.operator_id
     WHERE d.entry_id = $1 AND d.job_id = $2 ORDER BY d.created_at DESC, d.id`,
    [entryId, jobId],
  );
  return rows.map((r) => ({
    decision: r.approved ? ('approved' as const) : ('rejected' as const),
    reason: r.reason ?? undefined,
    decided_at: iso(r.created_at)!,
    ...(opts.deciders && {
      decided_by: r.operator_id ? { id: r.operator_id, name: r.operator_name! } : null,
    }),
  }));
}

/** The last decision on this job's submissions, if any (a new registration starts with none). */
export async function latestDecision(db: Queryable, entryId: string, jobId: string) {
  return (await decisionsOf(db, entryId, jobId))[0];
}
