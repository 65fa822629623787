// Read-only counts and timings over the whole store, for the onboarding benchmark and the stack's drivers (never
// workspace-scoped: they measure a run, they answer no user).
import type { Queryable } from './db';

export async function countEntriesInState(db: Queryable, state: string): Promise<number> {
  const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM entries WHERE state = $1', [state]);
  return Number(rows[0]!.n);
}

/** When each job in `status` reached it, in epoch ms: its last update (WAIT) or its completion (OK, ERR). */
export async function jobTimesInStatus(db: Queryable, status: 'WAIT' | 'OK' | 'ERR'): Promise<Map<string, number>> {
  const column = status === 'WAIT' ? 'updated_at' : 'completed_at';
  const { rows } = await db.query<{ id: string; t: number }>(
    `SELECT id, extract(epoch FROM ${column}) * 1000 AS t FROM jobs WHERE status = $1`,
    [status],
  );
  return new Map(rows.map((r) => [r.id, Number(r.t)]));
}

/** The faults of a few failed jobs, to say why a run failed. */
export async function someFailedJobFaults(db: Queryable, n = 3): Promise<unknown[]> {
  const { rows } = await db.query<{ faults: unknown }>(`SELECT faults FROM jobs WHERE status = 'ERR' LIMIT $1`, [n]);
  return rows.map((r) => r.faults);
}

/** How many of these jobs are in `status` (the campaign bench's one-at-a-time companies). */
export async function countJobsInStatus(db: Queryable, jobIds: string[], status: string): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM jobs WHERE id = ANY($1::uuid[]) AND status = $2`,
    [jobIds, status],
  );
  return Number(rows[0]!.n);
}

/** How many of a campaign's registrations are in `status`. */
export async function countCampaignJobsInStatus(db: Queryable, campaignId: string, status: string): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM campaign_rows r JOIN jobs j ON j.id = r.job_id WHERE r.campaign_id = $1 AND j.status = $2`,
    [campaignId, status],
  );
  return Number(rows[0]!.n);
}

/** A campaign's entries, in line order. */
export async function campaignEntryIds(db: Queryable, campaignId: string): Promise<string[]> {
  const { rows } = await db.query<{ entry_id: string }>(
    `SELECT entry_id FROM campaign_rows WHERE campaign_id = $1 AND entry_id IS NOT NULL ORDER BY line`,
    [campaignId],
  );
  return rows.map((r) => r.entry_id);
}

/**
 * How each entry's submission was decided: automatically (by a policy rule) or not yet or by a person, the time from
 * its confirmation to its decision, and what the director check found (a benchmark's report).
 */
export async function submissionDecisions(db: Queryable, entryIds: string[]) {
  const { rows } = await db.query<{ automatic: boolean; ms: number | null; signer: string | null }>(
    `SELECT d.policy_rule IS NOT NULL AS automatic, c.signer_result AS signer,
       (extract(epoch FROM d.created_at - m.submitted_at) * 1000)::float8 AS ms
     FROM mandates m LEFT JOIN approval_decisions d ON d.id = m.decision_id
     LEFT JOIN submission_checks c ON c.entry_id = m.entry_id AND c.mandate_number = m.mandate_number
     WHERE m.entry_id = ANY($1::uuid[]) AND m.submitted_at IS NOT NULL`,
    [entryIds],
  );
  return rows;
}
