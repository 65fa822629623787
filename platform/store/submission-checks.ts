// The checks of each entry's latest submission (domain/review/submission-checks.ts), written with the submission;
// the review detail's own Annuaire lookup fills in a record the submission could not get.
import type { Queryable } from './db';

export interface ChecksRow {
  purpose: string;
  round: number;
  evidence: string;
  directory: unknown;
  nameMatches: boolean | null;
  companyActive: boolean | null;
  /** Whether the signer is among the company's directors (domain/review/director-check.ts SignerCheck). */
  signer: { result: 'pass' | 'fail' | 'unavailable' } & Record<string, unknown>;
  /** The signature's evidence in detail; null for a submission recorded before it was. */
  signature: ({ kind: string } & Record<string, unknown>) | null;
}

/**
 * Records the checks of the mandate's submission, replacing an earlier submission's. Its deadline is the approval
 * wait's: the wait step's start (`waitStepId`, its first journal row) plus `deadline` (APPROVAL_DEADLINE, a duration
 * PostgreSQL reads as an interval: 30d, 12h, 250ms; counted in seconds, as the workflow's timer counts it, whatever
 * the session's time zone), or from now when the journal has no start for it.
 */
export async function recordChecks(
  q: Queryable,
  s: { entryId: string; jobId: string; mandateNumber: string; waitStepId?: string; deadline: string },
  c: ChecksRow,
): Promise<void> {
  await q.query(
    `INSERT INTO submission_checks AS c (entry_id, job_id, mandate_number, purpose, round, evidence, decide_by, directory,
       name_matches, company_active, signer_check, signature)
     VALUES ($1, $2, $3, $4, $5, $6,
       COALESCE((SELECT created_at FROM job_intents WHERE job_id = $2 AND step_id = $7), now())
         + make_interval(secs => extract(epoch FROM $8::interval)),
       $9, $10, $11, $12, $13)
     ON CONFLICT (entry_id) DO UPDATE SET job_id = excluded.job_id, mandate_number = excluded.mandate_number,
       purpose = excluded.purpose, round = excluded.round, evidence = excluded.evidence, decide_by = excluded.decide_by,
       directory = excluded.directory, name_matches = excluded.name_matches, company_active = excluded.company_active,
       signer_check = excluded.signer_check, signature = excluded.signature, checked_at = now()`,
    [
      s.entryId,
      s.jobId,
      s.mandateNumber,
      c.purpose,
      c.round,
      c.evidence,
      s.waitStepId ?? null,
      s.deadline,
      JSON.stringify(c.directory),
      c.nameMatches,
      c.companyActive,
      JSON.stringify(c.signer),
      c.signature && JSON.stringify(c.signature),
    ],
  );
}

/**
 * The Annuaire's record, as the review detail found it, for a submission whose checks have none (the Annuaire did
 * not answer when it was made, or it was made before checks were): the queue's filters then see it.
 */
export async function fillDirectoryCheck(
  q: Queryable,
  s: { entryId: string; mandateNumber: string },
  c: Pick<ChecksRow, 'directory' | 'nameMatches' | 'companyActive'> & { takeover: boolean },
): Promise<void> {
  await q.query(
    `UPDATE submission_checks SET directory = $3, name_matches = $4, company_active = $5,
       purpose = CASE WHEN $6 THEN 'takeover' ELSE purpose END, checked_at = now()
     WHERE entry_id = $1 AND mandate_number = $2 AND directory->>'outcome' IN ('unavailable', 'unchecked')`,
    [s.entryId, s.mandateNumber, JSON.stringify(c.directory), c.nameMatches, c.companyActive, c.takeover],
  );
}

/** The checks recorded with this mandate's latest submission, if any. */
export async function checksOfSubmission(
  q: Queryable,
  s: { entryId: string; mandateNumber: string },
): Promise<ChecksRow | undefined> {
  const { rows } = await q.query<{
    purpose: string;
    round: number;
    evidence: string;
    directory: unknown;
    name_matches: boolean | null;
    company_active: boolean | null;
    signer_check: ChecksRow['signer'];
    signature: ChecksRow['signature'];
  }>(
    `SELECT purpose, round, evidence, directory, name_matches, company_active, signer_check, signature
     FROM submission_checks
     WHERE entry_id = $1 AND mandate_number = $2`,
    [s.entryId, s.mandateNumber],
  );
  const r = rows[0];
  return (
    r && {
      purpose: r.purpose,
      round: r.round,
      evidence: r.evidence,
      directory: r.directory,
      nameMatches: r.name_matches,
      companyActive: r.company_active,
      signer: r.signer_check,
      signature: r.signature,
    }
  );
}

/**
 * Pending submissions whose director check found the register silent (`no-answer`: its limit, or a fault), for the
 * signer or for a certificate, checked more than `olderThanMs` ago: the re-checks' work, oldest first.
 */
export async function unansweredChecks(
  db: Queryable,
  o: { olderThanMs: number; limit: number; /** this entry's only */ entryId?: string },
) {
  const { rows } = await db.query<{ entry_id: string; workspace_id: string; job_id: string; mandate_number: string }>(
    `SELECT c.entry_id, e.workspace_id, c.job_id, c.mandate_number FROM submission_checks c
     JOIN mandates m ON m.entry_id = c.entry_id AND m.mandate_number = c.mandate_number
     JOIN entries e ON e.id = c.entry_id
     WHERE m.submitted_at IS NOT NULL AND m.decision_id IS NULL AND m.voided_at IS NULL
       AND (c.signer_check->>'code' = 'no-answer' OR c.signature->'director'->>'code' = 'no-answer')
       AND c.checked_at < now() - ($1::int * interval '1 millisecond') AND ($3::uuid IS NULL OR c.entry_id = $3)
     ORDER BY c.checked_at LIMIT $2`,
    [o.olderThanMs, o.limit, o.entryId ?? null],
  );
  return rows.map((r) => ({
    entryId: r.entry_id,
    workspaceId: r.workspace_id,
    jobId: r.job_id,
    mandateNumber: r.mandate_number,
  }));
}

/**
 * The checks made again of a submission still pending (its round and deadline kept); false when it was decided,
 * reopened or replaced meanwhile.
 */
export async function replaceChecks(
  q: Queryable,
  s: { entryId: string; mandateNumber: string },
  c: Omit<ChecksRow, 'round' | 'evidence'>,
): Promise<boolean> {
  const r = await q.query(
    `UPDATE submission_checks c SET purpose = $3, directory = $4, name_matches = $5, company_active = $6,
       signer_check = $7, signature = $8, checked_at = now()
     FROM mandates m
     WHERE c.entry_id = $1 AND c.mandate_number = $2 AND m.entry_id = c.entry_id AND m.mandate_number = c.mandate_number
       AND m.submitted_at IS NOT NULL AND m.decision_id IS NULL AND m.voided_at IS NULL`,
    [
      s.entryId,
      s.mandateNumber,
      c.purpose,
      JSON.stringify(c.directory),
      c.nameMatches,
      c.companyActive,
      JSON.stringify(c.signer),
      c.signature && JSON.stringify(c.signature),
    ],
  );
  return r.rowCount > 0;
}
