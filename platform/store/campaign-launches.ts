// What a started campaign registers and how far it is (table campaign_rows, its entry_id, job_id and launch_fault):
// the rows to register a batch at a time, what was made of them, their parties' states and running registrations,
// the signers' links, and the campaigns the housekeeping tells again or ends.
import type { CampaignRecord } from './campaigns';
import type { Queryable } from './db';

/** The verdicts whose rows a started campaign registers. */
export const LAUNCHED_VERDICTS = ['new', 'takeover', 'migrate'];

/** The next rows to register, in line order after `afterLine`: judged so, and not yet given their entry and job. */
export async function rowsToLaunch(
  db: Queryable,
  id: string,
  afterLine: number,
  limit: number,
): Promise<{ line: number; siren: string; data: unknown; details: Record<string, unknown> | null }[]> {
  const { rows } = await db.query<{
    line: number;
    siren: string;
    data: unknown;
    details: Record<string, unknown> | null;
  }>(
    `SELECT line, siren, data, details FROM campaign_rows
      WHERE campaign_id = $1 AND line > $2 AND verdict = ANY($4::text[]) AND job_id IS NULL AND launch_fault IS NULL
      ORDER BY line LIMIT $3`,
    [id, afterLine, limit, LAUNCHED_VERDICTS],
  );
  return rows;
}

/** Rows given their entry and registration, or why they could not be (`fault`, then no job). */
export async function recordLaunched(
  db: Queryable,
  id: string,
  launched: { line: number; entryId?: string; jobId?: string; fault?: string }[],
): Promise<void> {
  if (launched.length === 0) return;
  await db.query(
    `WITH r AS (
       UPDATE campaign_rows c SET entry_id = t.entry, job_id = t.job, launch_fault = t.fault
         FROM unnest($2::int[], $3::uuid[], $4::uuid[], $5::text[]) AS t(line, entry, job, fault)
        WHERE c.campaign_id = $1 AND c.line = t.line AND c.job_id IS NULL RETURNING t.job)
     UPDATE campaigns SET launched_rows = launched_rows + (SELECT count(job) FROM r), updated_at = now() WHERE id = $1`,
    [
      id,
      launched.map((l) => l.line),
      launched.map((l) => l.entryId ?? null),
      launched.map((l) => l.jobId ?? null),
      launched.map((l) => l.fault ?? null),
    ],
  );
}

/** The rows given a registration, by their party's state, and those registrations still running (a row refused at
 * its start, with an entry but no registration, is in neither). */
export async function launchedProgress(
  db: Queryable,
  id: string,
): Promise<{ states: Record<string, number>; running: number }> {
  const { rows } = await db.query<{ state: string | null; running: boolean; n: string }>(
    `SELECT e.state, j.completed_at IS NULL AS running, count(*) AS n
       FROM campaign_rows r JOIN entries e ON e.id = r.entry_id JOIN jobs j ON j.id = r.job_id
      WHERE r.campaign_id = $1 GROUP BY e.state, j.completed_at IS NULL`,
    [id],
  );
  const states: Record<string, number> = {};
  let running = 0;
  for (const r of rows) {
    const state = r.state ?? 'draft';
    states[state] = (states[state] ?? 0) + Number(r.n);
    if (r.running) running += Number(r.n);
  }
  return { states, running };
}

/** Running campaigns every row of which is launched and every registration of which has ended. */
export async function campaignsDone(db: Queryable): Promise<{ id: string; workspace_id: string }[]> {
  const { rows } = await db.query<{ id: string; workspace_id: string }>(
    `SELECT c.id, c.workspace_id FROM campaigns c
      WHERE c.status = 'running'
        AND NOT EXISTS (SELECT 1 FROM campaign_rows r WHERE r.campaign_id = c.id
                          AND r.verdict = ANY($1::text[]) AND r.job_id IS NULL AND r.launch_fault IS NULL)
        AND NOT EXISTS (SELECT 1 FROM campaign_rows r JOIN jobs j ON j.id = r.job_id
                         WHERE r.campaign_id = c.id AND j.completed_at IS NULL)
      LIMIT 100`,
    [LAUNCHED_VERDICTS],
  );
  return rows;
}

/**
 * Started campaigns cancelled whose registrations have all ended (cancelled, or past the point of cancelling and
 * gone on to their end): stamped finished, each returned once.
 */
export async function endCancelledCampaigns(db: Queryable): Promise<CampaignRecord[]> {
  const { rows } = await db.query<CampaignRecord>(
    `UPDATE campaigns c SET finished_at = now(), updated_at = now()
      WHERE c.id IN (SELECT c2.id FROM campaigns c2
                      WHERE c2.status = 'cancelled' AND c2.finished_at IS NULL
                        AND NOT EXISTS (SELECT 1 FROM campaign_rows r JOIN jobs j ON j.id = r.job_id
                                         WHERE r.campaign_id = c2.id AND j.completed_at IS NULL)
                      LIMIT 100)
      RETURNING c.*`,
  );
  return rows;
}

export interface SignerLink {
  line: number;
  siren: string;
  data: unknown;
  link_url: string | null;
  state: string | null;
  /** The bundle of the signer's companies, when the row is in one. */
  bundle_ref: string | null;
}

/** The registered rows' signer links (the wizard link their registration issued), in line order after `afterLine`. */
export async function signerLinks(db: Queryable, id: string, afterLine: number, limit: number): Promise<SignerLink[]> {
  const { rows } = await db.query<SignerLink>(
    `SELECT r.line, r.siren, r.data, m.link_url, e.state, b.ref AS bundle_ref FROM campaign_rows r
       JOIN entries e ON e.id = r.entry_id
       LEFT JOIN entry_meta m ON m.entry_id = r.entry_id AND m.key = 'approval-link'
       LEFT JOIN campaign_bundles b ON b.id = r.bundle_id
      WHERE r.campaign_id = $1 AND r.line > $2 AND r.job_id IS NOT NULL ORDER BY r.line LIMIT $3`,
    [id, afterLine, limit],
  );
  return rows;
}

/** The jobs of a campaign's rows still running, in id order after `after` (to cancel them with it). */
export async function runningCampaignJobs(db: Queryable, id: string, after: string, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT j.id FROM campaign_rows r JOIN jobs j ON j.id = r.job_id
      WHERE r.campaign_id = $1 AND j.completed_at IS NULL AND j.id::text > $2 ORDER BY j.id::text LIMIT $3`,
    [id, after, limit],
  );
  return rows.map((r) => r.id);
}

/** Running campaigns whose launching made no progress for `idleMs` though rows are left to register. */
export async function stalledRuns(db: Queryable, idleMs: number): Promise<{ id: string; workspace_id: string }[]> {
  const { rows } = await db.query<{ id: string; workspace_id: string }>(
    `SELECT c.id, c.workspace_id FROM campaigns c
      WHERE c.status = 'running' AND c.updated_at < now() - $1 * interval '1 millisecond'
        AND EXISTS (SELECT 1 FROM campaign_rows r WHERE r.campaign_id = c.id
                      AND r.verdict = ANY($2::text[]) AND r.job_id IS NULL AND r.launch_fault IS NULL)
      LIMIT 100`,
    [idleMs, LAUNCHED_VERDICTS],
  );
  return rows;
}

/** The campaigns running now. */
export async function runningCampaigns(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(`SELECT id FROM campaigns WHERE status = 'running' LIMIT 1000`);
  return rows.map((r) => r.id);
}
