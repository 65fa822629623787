// Operators' decisions on submitted mandates: recorded, claimed for the job's submission (one operator wins),
// each job's decisions kept when its signer submits again. The review queue is review-queue.ts.
import type { Queryable } from './db';
import { bothEffects, type StatementEffect } from './statement-effect';
import { iso } from './rows';

/**
 * Until when the automatic approval in `d` may be overturned: the end of its hold, less a margin (10 s, or a quarter
 * of a shorter window): the registration's own timer, on Temporal's clock, must not run on with an approval already
 * overturned here.
 */
export const overturnableUntil = (d: string) =>
  `(${d}.hold_until - LEAST(interval '10 seconds', (${d}.hold_until - ${d}.created_at) / 4))`;

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
  /**
   * `first-approval`: an approval the decision policy does not let settle the submission alone (four eyes), kept
   * with the mandate until a second operator decides; `final` (the default): the submission's decision.
   */
  stage?: 'first-approval' | 'final';
  /** The policy's case that asked for two approvals, and the policy's version. */
  policy?: { case: string; version: number };
  /**
   * An automatic approval: the policy's rule that made it, its version, the facts it read, and until when an operator
   * may overturn it (ISO).
   */
  automatic?: { rule: string; version: number; inputs: unknown; holdUntil: string };
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
    params: [
      d.entryId,
      d.jobId,
      d.id,
      d.approved,
      d.reason ?? null,
      d.operatorId ?? null,
      d.decidedAt,
      d.policy?.case ?? null,
      d.policy?.version ?? d.automatic?.version ?? null,
      d.automatic?.rule ?? null,
      d.automatic ? JSON.stringify(d.automatic.inputs) : null,
      d.automatic?.holdUntil ?? null,
    ],
    requires: {
      ...refusal,
      // A job the store does not hold has no cancellation.
      holds: (first) =>
        `COALESCE((SELECT cancel_reason IS NULL FROM jobs WHERE id = $${first + 1}::uuid FOR UPDATE), true)`,
    },
    result: 'EXISTS (SELECT 1 FROM claim)',
    ctes: (first, guard) => {
      const [entry, job, id, approved, reason, by, at, policyCase, version, rule, inputs, holdUntil] = Array.from(
        { length: 12 },
        (_, i) => `$${first + i}`,
      );
      // A first approval takes the mandate's first-approval slot (one operator wins it); the decision, the submission.
      const firstApproval = d.stage === 'first-approval';
      const slot = firstApproval ? `first_approval_id = ${id}::uuid` : `decision_id = ${id}::uuid`;
      return `claim AS (
         UPDATE mandates SET ${slot}, updated_at = now()
         WHERE entry_id = ${entry}::uuid AND job_id = ${job}::uuid AND submitted_at IS NOT NULL
           AND decision_id IS NULL AND voided_at IS NULL ${firstApproval ? 'AND first_approval_id IS NULL' : ''} AND ${guard}
         RETURNING entry_id
       ), decision AS (
         INSERT INTO approval_decisions (id, entry_id, job_id, approved, reason, operator_id, created_at, final,
           policy_case, policy_version, policy_rule, inputs, hold_until)
         SELECT ${id}::uuid, ${entry}::uuid, ${job}::uuid, ${approved}::boolean, ${reason}::text, ${by}::uuid,
           ${at}::timestamptz, ${!firstApproval}, ${policyCase}::text, ${version}::integer, ${rule}::text,
           ${inputs}::jsonb, ${holdUntil}::timestamptz FROM claim
       )`;
    },
  };
  return also ? { ...bothEffects(decision, also), result: decision.result } : decision;
}

/**
 * Every decision on this job's submissions, newest first: a rejected submission and its reason stay on record when
 * the signer submits again, for the operator deciding on the new one. `deciders` (for the operators only: the
 * signer's wizard never names them): with the operator who took each, and the first approvals four eyes asked for
 * (`stage`), each with the policy's case.
 */
export async function decisionsOf(db: Queryable, entryId: string, jobId: string, opts: { deciders?: boolean } = {}) {
  const { rows } = await db.query<{
    id: string;
    approved: boolean;
    reason: string | null;
    created_at: Date;
    operator_id: string | null;
    operator_name: string | null;
    final: boolean;
    policy_case: string | null;
    policy_rule: string | null;
    policy_version: number | null;
    inputs: unknown;
    hold_until: Date | null;
    overturnable_until: Date | null;
    overturns: string | null;
  }>(
    `SELECT d.id, d.approved, d.reason, d.created_at, d.operator_id, o.name AS operator_name, d.final, d.policy_case,
       d.policy_rule, d.policy_version, d.inputs, d.hold_until, ${overturnableUntil('d')} AS overturnable_until,
       d.overturns
     FROM approval_decisions d LEFT JOIN operators o ON o.id = d.operator_id
     WHERE d.entry_id = $1 AND d.job_id = $2 ${opts.deciders ? '' : 'AND d.final'}
     ORDER BY d.created_at DESC, d.id`,
    [entryId, jobId],
  );
  return rows.map((r) => ({
    decision: r.approved ? ('approved' as const) : ('rejected' as const),
    reason: r.reason ?? undefined,
    decided_at: iso(r.created_at)!,
    ...(opts.deciders && {
      id: r.id,
      stage: r.final ? ('final' as const) : ('first-approval' as const),
      policy_case: r.policy_case,
      decided_by: r.operator_id ? { id: r.operator_id, name: r.operator_name! } : null,
      // An automatic approval: the rule, its policy's version and the facts it read.
      ...(r.policy_rule && {
        automatic: {
          rule: r.policy_rule,
          version: r.policy_version,
          inputs: r.inputs,
          overturnable_until: iso(r.overturnable_until),
          runs_on_at: iso(r.hold_until),
        },
      }),
      ...(r.overturns && { overturns: r.overturns }),
    }),
  }));
}

/** The last decision on this job's submissions, if any (a new registration starts with none). */
export async function latestDecision(db: Queryable, entryId: string, jobId: string) {
  return (await decisionsOf(db, entryId, jobId))[0];
}

/**
 * The first approval the mandate's current submission holds (four eyes), if any: who gave it, when, on which case.
 * Read with the job's row then the mandate's locked (a cancellation's order): of two approvals at once, the second
 * to take them sees the first's.
 */
export async function lockedFirstApproval(q: Queryable, s: { entryId: string; jobId: string }) {
  await q.query('SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE', [s.jobId]);
  await q.query('SELECT 1 FROM mandates WHERE entry_id = $1 FOR UPDATE', [s.entryId]);
  return firstApprovalOf(q, s.entryId);
}

/** The first approval the mandate's current submission holds (four eyes), if any: who gave it, when, on which case. */
export async function firstApprovalOf(q: Queryable, entryId: string) {
  const { rows } = await q.query<{
    id: string;
    operator_id: string | null;
    created_at: Date;
    policy_case: string | null;
  }>(
    `SELECT d.id, d.operator_id, d.created_at, d.policy_case FROM mandates m
     JOIN approval_decisions d ON d.id = m.first_approval_id WHERE m.entry_id = $1`,
    [entryId],
  );
  const r = rows[0];
  return r && { id: r.id, operatorId: r.operator_id, decidedAt: iso(r.created_at)!, policyCase: r.policy_case };
}

/**
 * An operator's rejection overturning the automatic approval the submission holds, while its window is open: the
 * approval stays on record, the rejection names it and becomes the submission's decision. Read with the job's row
 * then the mandate's locked, as a decision is; open until `overturnableUntil`.
 */
export async function overturnAutomatic(
  q: Queryable,
  d: { id: string; entryId: string; jobId: string; operatorId: string; reason?: string; decidedAt: string },
): Promise<{ overturned: string } | { closed: { decidedAt: string; until: string | null } } | undefined> {
  await q.query('SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE', [d.jobId]);
  const { rows } = await q.query<{ id: string; created_at: Date; until: Date | null; open: boolean }>(
    `SELECT a.id, a.created_at, ${overturnableUntil('a')} AS until, ${overturnableUntil('a')} > now() AS open
     FROM mandates m JOIN approval_decisions a ON a.id = m.decision_id
     WHERE m.entry_id = $1 AND m.job_id = $2 AND a.approved AND a.policy_rule IS NOT NULL AND m.voided_at IS NULL
     FOR UPDATE OF m`,
    [d.entryId, d.jobId],
  );
  const auto = rows[0];
  if (!auto) return undefined;
  if (!auto.open) return { closed: { decidedAt: iso(auto.created_at)!, until: iso(auto.until) ?? null } };
  await q.query(
    `INSERT INTO approval_decisions (id, entry_id, job_id, approved, reason, operator_id, created_at, final, overturns)
     VALUES ($1, $2, $3, false, $4, $5, $6, true, $7)`,
    [d.id, d.entryId, d.jobId, d.reason ?? null, d.operatorId, d.decidedAt, auto.id],
  );
  await q.query('UPDATE mandates SET decision_id = $2, updated_at = now() WHERE entry_id = $1', [d.entryId, d.id]);
  return { overturned: auto.id };
}
