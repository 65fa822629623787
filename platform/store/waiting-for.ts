// What a job in WAIT waits for (contract/waiting-for.ts), as the store tells it: a day (`waits_until`), or where its
// mandate stands.
import type { WaitingFor } from '../../contract/waiting-for';
import type { Queryable } from './db';

export { WAITING_FOR, type WaitingFor } from '../../contract/waiting-for';

/** SQL: what job `j` (an alias of jobs) waits for, or null when it is not in WAIT. */
export const waitingForSql = (
  j: string,
) => `CASE WHEN ${j}.status = 'WAIT' AND ${j}.waits_until IS NOT NULL THEN 'effective-date'
  WHEN ${j}.status = 'WAIT' THEN COALESCE((
    SELECT CASE WHEN a.submitted_at IS NOT NULL AND a.first_approval_id IS NOT NULL AND a.decision_id IS NULL THEN 'second-decision'
                WHEN a.submitted_at IS NOT NULL THEN 'decision'
                WHEN EXISTS (SELECT 1 FROM approval_decisions d WHERE d.job_id = ${j}.id AND NOT d.approved) THEN 'resubmission'
                ELSE 'signer' END
    FROM mandates a WHERE a.entry_id = ${j}.silo_entry_id AND a.job_id = ${j}.id), 'signer') END`;

/** What each of these jobs waits for and its party's state, by job id (absent: no such job). */
export async function waitingForOfJobs(
  db: Queryable,
  jobIds: string[],
): Promise<Map<string, { waitingFor: WaitingFor | null; partyState: string | null }>> {
  const { rows } = await db.query<{ id: string; waiting_for: WaitingFor | null; state: string | null }>(
    `SELECT j.id, ${waitingForSql('j')} AS waiting_for, e.state FROM jobs j JOIN entries e ON e.id = j.silo_entry_id
     WHERE j.id = ANY ($1::uuid[])`,
    [jobIds],
  );
  return new Map(rows.map((r) => [r.id, { waitingFor: r.waiting_for, partyState: r.state }]));
}
