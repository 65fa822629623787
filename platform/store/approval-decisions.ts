// Operators' decisions on submitted mandates: recorded, claimed for the job's submission (one operator wins),
// the review queue, each job's decisions kept when its signer submits again.
import crypto from 'node:crypto';
import type { Queryable } from './db';
import { iso } from './rows';
import type { UploadEvidence } from './agreements';

/**
 * Claims the decision on the job's current submission; false when there is none to decide, or it is decided
 * already (two operators at once: one wins).
 */
export async function claimDecision(
  db: Queryable,
  entryId: string,
  jobId: string,
  decisionId: string,
): Promise<boolean> {
  const r = await db.query(
    `UPDATE agreements SET decision_id = $3, updated_at = now()
     WHERE entry_id = $1 AND job_id = $2 AND submitted_at IS NOT NULL AND decision_id IS NULL AND voided_at IS NULL`,
    [entryId, jobId, decisionId],
  );
  return r.rowCount > 0;
}

export async function recordDecision(
  db: Queryable,
  d: {
    id?: string;
    entryId: string;
    jobId: string;
    approved: boolean;
    reason?: string;
    decidedBy?: string;
    /** ISO time, as the API answers it */ decidedAt?: string;
  },
) {
  const id = d.id ?? crypto.randomUUID();
  await db.query(
    'INSERT INTO approval_decisions (id, entry_id, job_id, approved, reason, decided_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, coalesce($7::timestamptz, now()))',
    [id, d.entryId, d.jobId, d.approved, d.reason ?? null, d.decidedBy ?? null, d.decidedAt ?? null],
  );
  return id;
}

/** Submissions awaiting a decision in a workspace, oldest first (the operator's review queue). */
export async function pendingSubmissions(db: Queryable, workspaceId: string, limit = 100) {
  const { rows } = await db.query<{
    entry_id: string;
    job_id: string;
    mandate_number: string;
    submitted_at: Date;
    siren: string | null;
    name: string | null;
    upload_evidence: UploadEvidence | null;
  }>(
    `SELECT a.entry_id, a.job_id, a.mandate_number, a.submitted_at, e.siren, e.data->>'name' AS name, a.upload_evidence
     FROM agreements a JOIN entries e ON e.id = a.entry_id
     WHERE e.workspace_id = $1 AND a.submitted_at IS NOT NULL AND a.decision_id IS NULL AND a.voided_at IS NULL
     ORDER BY a.submitted_at LIMIT $2`,
    [workspaceId, limit],
  );
  return rows.map((r) => ({ ...r, submitted_at: iso(r.submitted_at) }));
}

/**
 * Every decision on this job's submissions, newest first: a rejected submission and its reason stay on record when
 * the signer submits again, for the operator deciding on the new one.
 */
export async function decisionsOf(db: Queryable, entryId: string, jobId: string) {
  const { rows } = await db.query<{ approved: boolean; reason: string | null; created_at: Date }>(
    'SELECT approved, reason, created_at FROM approval_decisions WHERE entry_id = $1 AND job_id = $2 ORDER BY created_at DESC, id',
    [entryId, jobId],
  );
  return rows.map((r) => ({
    decision: r.approved ? ('approved' as const) : ('rejected' as const),
    reason: r.reason ?? undefined,
    decided_at: iso(r.created_at)!,
  }));
}

/** The last decision on this job's submissions, if any (a new registration starts with none). */
export async function latestDecision(db: Queryable, entryId: string, jobId: string) {
  return (await decisionsOf(db, entryId, jobId))[0];
}
