// What a job in WAIT waits for: a day (its changes take effect then: `waits_until`), or, from its mandate, the signer
// (to sign and submit), the operator's decision on the submission, a second operator's (four eyes: a first approval
// is recorded), or a new submission after the operator rejected one. The party's state says `processing` for both the
// signer and the resubmission: this tells them apart.
export const WAITING_FOR = ['signer', 'decision', 'second-decision', 'resubmission', 'effective-date'] as const;
export type WaitingFor = (typeof WAITING_FOR)[number];

/** SQL: what job `j` (an alias of jobs) waits for, or null when it is not in WAIT. */
export const waitingForSql = (
  j: string,
) => `CASE WHEN ${j}.status = 'WAIT' AND ${j}.waits_until IS NOT NULL THEN 'effective-date'
  WHEN ${j}.status = 'WAIT' THEN COALESCE((
    SELECT CASE WHEN a.submitted_at IS NOT NULL AND a.first_approval_id IS NOT NULL THEN 'second-decision'
                WHEN a.submitted_at IS NOT NULL THEN 'decision'
                WHEN EXISTS (SELECT 1 FROM approval_decisions d WHERE d.job_id = ${j}.id AND NOT d.approved) THEN 'resubmission'
                ELSE 'signer' END
    FROM mandates a WHERE a.entry_id = ${j}.silo_entry_id AND a.job_id = ${j}.id), 'signer') END`;
