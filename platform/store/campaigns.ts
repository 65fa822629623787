// Campaigns and their rows (tables campaigns, campaign_rows, campaign_sirens): a file's rows written as it is read,
// in batches; its key set once it is read whole; the dry run's verdicts written a batch at a time; the rows a started
// campaign registers, its progress and its end. Over 300 lines: the three tables are written together (a claim, a
// verdict and a campaign's counts in one statement); the launching's half is to move to a file of its own.
import type { Queryable } from './db';
import { iso, isUniqueViolation } from './rows';

export type CampaignStatus = 'uploading' | 'checking' | 'checked' | 'running' | 'paused' | 'finished' | 'cancelled';

export interface CampaignRecord {
  id: string;
  workspace_id: string;
  key: string;
  file_sha256: string | null;
  file_format: 'csv' | 'jsonl';
  file_bytes: string;
  status: CampaignStatus;
  row_count: number;
  checked_rows: number;
  requests: Record<string, number>;
  launched_rows: number;
  created_at: Date;
  checked_at: Date | null;
  started_at: Date | null;
  finished_at: Date | null;
}

export const campaignTimes = (c: CampaignRecord) => ({
  created_at: iso(c.created_at)!,
  ...(c.checked_at && { checked_at: iso(c.checked_at)! }),
  ...(c.started_at && { started_at: iso(c.started_at)! }),
  ...(c.finished_at && { finished_at: iso(c.finished_at)! }),
});

export async function insertCampaign(
  db: Queryable,
  c: { id: string; workspaceId: string; format: 'csv' | 'jsonl' },
): Promise<void> {
  await db.query(`INSERT INTO campaigns (id, workspace_id, key, file_format) VALUES ($1, $2, $3, $4)`, [
    c.id,
    c.workspaceId,
    `uploading:${c.id}`,
    c.format,
  ]);
}

export interface StagedRow {
  line: number;
  siren?: string;
  data?: unknown;
  faults?: unknown[];
}

/** JSON PostgreSQL takes: a NUL a file's cell held (echoed in a fault) becomes U+FFFD, which jsonb can store. */
const storable = (v: unknown) =>
  JSON.stringify(v, (_k, x: unknown) => (typeof x === 'string' ? x.replaceAll('\u0000', '\uFFFD') : x));

/** Rows as read; a row with faults is `blocked` at once, its faults its reasons. */
export async function insertCampaignRows(db: Queryable, campaignId: string, rows: StagedRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO campaign_rows (campaign_id, line, siren, data, faults, verdict, reasons, checked_at)
     SELECT $1, t.line, t.siren, t.data, t.faults,
            CASE WHEN t.faults IS NULL THEN NULL ELSE 'blocked' END,
            CASE WHEN t.faults IS NULL THEN NULL ELSE t.faults END,
            CASE WHEN t.faults IS NULL THEN NULL ELSE now() END
       FROM unnest($2::int[], $3::text[], $4::jsonb[], $5::jsonb[]) AS t(line, siren, data, faults)`,
    [
      campaignId,
      rows.map((r) => r.line),
      rows.map((r) => r.siren ?? null),
      rows.map((r) => (r.data === undefined ? null : storable(r.data))),
      rows.map((r) => (r.faults ? storable(r.faults) : null)),
    ],
  );
}

/**
 * The file read whole: the campaign takes its key and goes to the dry run. When the workspace has a campaign of
 * that key already, this one is dropped and that one answered (`existing`), whether its file was the same or not.
 */
export async function completeUpload(
  db: Queryable,
  id: string,
  f: { key: string; sha256: string; bytes: number; rows: number },
): Promise<{ campaign: CampaignRecord; existing: boolean }> {
  try {
    const { rows } = await db.query<CampaignRecord>(
      `UPDATE campaigns SET key = $2, file_sha256 = $3, file_bytes = $4, row_count = $5, status = 'checking',
              updated_at = now()
        WHERE id = $1 AND status = 'uploading' RETURNING *`,
      [id, f.key, f.sha256, f.bytes, f.rows],
    );
    return { campaign: rows[0]!, existing: false };
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const { rows } = await db.query<CampaignRecord>(
      `WITH dropped AS (DELETE FROM campaigns WHERE id = $1 RETURNING workspace_id)
       SELECT c.* FROM campaigns c, dropped WHERE c.workspace_id = dropped.workspace_id AND c.key = $2`,
      [id, f.key],
    );
    return { campaign: rows[0]!, existing: true };
  }
}

/** An upload that did not finish leaves nothing behind. */
export async function dropUpload(db: Queryable, id: string): Promise<void> {
  await db.query(`DELETE FROM campaigns WHERE id = $1 AND status = 'uploading'`, [id]);
}

export async function getCampaign(db: Queryable, workspaceId: string, id: string): Promise<CampaignRecord | undefined> {
  const { rows } = await db.query<CampaignRecord>(
    `SELECT * FROM campaigns WHERE id = $1 AND workspace_id = $2 AND status <> 'uploading'`,
    [id, workspaceId],
  );
  return rows[0];
}

export async function campaignById(db: Queryable, id: string): Promise<CampaignRecord | undefined> {
  const { rows } = await db.query<CampaignRecord>(`SELECT * FROM campaigns WHERE id = $1`, [id]);
  return rows[0];
}

/** A workspace's campaigns, newest first. */
export async function listCampaigns(db: Queryable, workspaceId: string, limit: number): Promise<CampaignRecord[]> {
  const { rows } = await db.query<CampaignRecord>(
    `SELECT * FROM campaigns WHERE workspace_id = $1 AND status <> 'uploading'
      ORDER BY created_at DESC, id LIMIT $2`,
    [workspaceId, limit],
  );
  return rows;
}

/** Rows by verdict, `unchecked` for those the dry run has not reached. */
export async function verdictCounts(db: Queryable, id: string): Promise<Record<string, number>> {
  const { rows } = await db.query<{ verdict: string | null; n: string }>(
    `SELECT verdict, count(*) AS n FROM campaign_rows WHERE campaign_id = $1 GROUP BY verdict`,
    [id],
  );
  return Object.fromEntries(rows.map((r) => [r.verdict ?? 'unchecked', Number(r.n)]));
}

export interface CampaignRowRecord {
  line: number;
  siren: string | null;
  data: unknown;
  faults: { column: string; message: string }[] | null;
  verdict: string | null;
  reasons: unknown[] | null;
  details: Record<string, unknown> | null;
  entry_id: string | null;
  job_id: string | null;
  launch_fault: string | null;
}

/** A page of rows in line order after `afterLine`, of one verdict when given. */
export async function campaignRows(
  db: Queryable,
  id: string,
  page: { afterLine: number; limit: number; verdict?: string },
): Promise<CampaignRowRecord[]> {
  const { rows } = await db.query<CampaignRowRecord>(
    `SELECT line, siren, data, faults, verdict, reasons, details, entry_id, job_id, launch_fault FROM campaign_rows
      WHERE campaign_id = $1 AND line > $2 AND ($4::text IS NULL OR verdict = $4)
      ORDER BY line LIMIT $3`,
    [id, page.afterLine, page.limit, page.verdict ?? null],
  );
  return rows;
}

/** The rows the dry run has still to judge, in line order after `afterLine`. */
export async function rowsToCheck(
  db: Queryable,
  id: string,
  afterLine: number,
  limit: number,
): Promise<{ line: number; siren: string; data: unknown }[]> {
  const { rows } = await db.query<{ line: number; siren: string; data: unknown }>(
    `SELECT line, siren, data FROM campaign_rows
      WHERE campaign_id = $1 AND line > $2 AND verdict IS NULL ORDER BY line LIMIT $3`,
    [id, afterLine, limit],
  );
  return rows;
}

/**
 * Claims the rows' SIRENs for the campaign (the first row to claim one holds it); answers, for each row, the
 * campaign and line holding its SIREN. A retried claim finds its own.
 */
export async function claimSirens(
  db: Queryable,
  campaignId: string,
  rows: { line: number; siren: string }[],
): Promise<Map<number, { campaignId: string; line: number }>> {
  await db.query(
    `INSERT INTO campaign_sirens (siren, campaign_id, line)
     SELECT DISTINCT ON (siren) siren, $1::uuid, line FROM unnest($2::text[], $3::int[]) AS t(siren, line)
      ORDER BY siren, line
     ON CONFLICT (siren) DO NOTHING`,
    [campaignId, rows.map((r) => r.siren), rows.map((r) => r.line)],
  );
  const { rows: held } = await db.query<{ siren: string; campaign_id: string; line: number }>(
    `SELECT siren, campaign_id, line FROM campaign_sirens WHERE siren = ANY($1::text[])`,
    [rows.map((r) => r.siren)],
  );
  const bySiren = new Map(held.map((h) => [h.siren, { campaignId: h.campaign_id, line: h.line }]));
  return new Map(rows.map((r) => [r.line, bySiren.get(r.siren)!]));
}

export interface RowVerdict {
  line: number;
  verdict: string;
  reasons: string[];
  details?: Record<string, unknown>;
}

/** A batch's verdicts, and the dry run's progress with the requests it sent. */
export async function recordVerdicts(
  db: Queryable,
  campaignId: string,
  verdicts: RowVerdict[],
  requests: { annuaire: number; dns: number },
): Promise<void> {
  await db.query(
    `WITH v AS (
       UPDATE campaign_rows r SET verdict = t.verdict, reasons = t.reasons, details = t.details, checked_at = now()
         FROM unnest($2::int[], $3::text[], $4::jsonb[], $5::jsonb[]) AS t(line, verdict, reasons, details)
        WHERE r.campaign_id = $1 AND r.line = t.line AND r.verdict IS NULL
       RETURNING 1)
     UPDATE campaigns SET checked_rows = checked_rows + (SELECT count(*) FROM v),
            requests = jsonb_build_object(
              'annuaire', COALESCE((requests->>'annuaire')::int, 0) + $6,
              'dns', COALESCE((requests->>'dns')::int, 0) + $7),
            updated_at = now()
      WHERE id = $1`,
    [
      campaignId,
      verdicts.map((v) => v.line),
      verdicts.map((v) => v.verdict),
      verdicts.map((v) => JSON.stringify(v.reasons)),
      verdicts.map((v) => (v.details ? JSON.stringify(v.details) : null)),
      requests.annuaire,
      requests.dns,
    ],
  );
}

/** The dry run is over: the campaign is ready to start. False when it was not checking (done before, cancelled). */
export async function endCheck(db: Queryable, campaignId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE campaigns SET status = 'checked', checked_at = coalesce(checked_at, now()), updated_at = now()
      WHERE id = $1 AND status = 'checking'`,
    [campaignId],
  );
  return rowCount > 0;
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

/** For each SIREN held on this platform, the workspace of the entry holding it. */
export async function holdingWorkspaces(db: Queryable, sirens: string[]): Promise<Map<string, string>> {
  const { rows } = await db.query<{ siren: string; workspace_id: string }>(
    `SELECT h.siren, e.workspace_id FROM directory_holdings h JOIN entries e ON e.id = h.entry_id
      WHERE h.siren = ANY($1::text[])`,
    [sirens],
  );
  return new Map(rows.map((r) => [r.siren, r.workspace_id]));
}

/** The workspace's registrations under way, by the SIREN they register. */
export async function runningRegistrations(
  db: Queryable,
  workspaceId: string,
  sirens: string[],
): Promise<Map<string, string>> {
  const { rows } = await db.query<{ siren: string; id: string }>(
    `SELECT registers_siren AS siren, id FROM jobs
      WHERE workspace_id = $1 AND completed_at IS NULL AND registers_siren = ANY($2::text[])`,
    [workspaceId, sirens],
  );
  return new Map(rows.map((r) => [r.siren, r.id]));
}

/** The open campaign whose row holds a SIREN, if any. */
export async function sirenClaim(
  db: Queryable,
  siren: string,
): Promise<{ campaignId: string; workspaceId: string; line: number } | undefined> {
  const { rows } = await db.query<{ campaign_id: string; workspace_id: string; line: number }>(
    `SELECT s.campaign_id, c.workspace_id, s.line FROM campaign_sirens s JOIN campaigns c ON c.id = s.campaign_id
      WHERE s.siren = $1`,
    [siren],
  );
  const r = rows[0];
  return r && { campaignId: r.campaign_id, workspaceId: r.workspace_id, line: r.line };
}

/** Campaigns whose dry run has made no progress for `idleMs` (its workflow never started, or ended early). */
export async function stalledChecks(db: Queryable, idleMs: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM campaigns WHERE status = 'checking' AND updated_at < now() - $1 * interval '1 millisecond'
      ORDER BY updated_at LIMIT 100`,
    [idleMs],
  );
  return rows.map((r) => r.id);
}

/**
 * Moves a campaign from one of `from` to `to` (and stamps the start or the end); undefined when it is in none of
 * them (the caller says why from its status).
 */
export async function moveCampaign(
  db: Queryable,
  workspaceId: string,
  id: string,
  from: CampaignStatus[],
  to: CampaignStatus,
): Promise<CampaignRecord | undefined> {
  const { rows } = await db.query<CampaignRecord>(
    `UPDATE campaigns SET status = $4, updated_at = now(),
            started_at = CASE WHEN $4 = 'running' THEN coalesce(started_at, now()) ELSE started_at END,
            finished_at = CASE WHEN $4 IN ('finished', 'cancelled') THEN now() ELSE finished_at END
      WHERE id = $1 AND workspace_id = $2 AND status = ANY($3::text[]) RETURNING *`,
    [id, workspaceId, from, to],
  );
  if (rows[0] && (to === 'finished' || to === 'cancelled'))
    await db.query(`DELETE FROM campaign_sirens WHERE campaign_id = $1`, [id]);
  return rows[0];
}

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

/** The started rows by their party's state, and their registrations still running. */
export async function launchedProgress(
  db: Queryable,
  id: string,
): Promise<{ states: Record<string, number>; running: number }> {
  const { rows } = await db.query<{ state: string | null; running: boolean; n: string }>(
    `SELECT e.state, j.completed_at IS NULL AS running, count(*) AS n
       FROM campaign_rows r JOIN entries e ON e.id = r.entry_id LEFT JOIN jobs j ON j.id = r.job_id
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

export interface SignerLink {
  line: number;
  siren: string;
  data: unknown;
  link_url: string | null;
  state: string | null;
}

/** The started rows' signer links (the wizard link their registration issued), in line order after `afterLine`. */
export async function signerLinks(db: Queryable, id: string, afterLine: number, limit: number): Promise<SignerLink[]> {
  const { rows } = await db.query<SignerLink>(
    `SELECT r.line, r.siren, r.data, m.link_url, e.state FROM campaign_rows r
       JOIN entries e ON e.id = r.entry_id
       LEFT JOIN entry_meta m ON m.entry_id = r.entry_id AND m.key = 'approval-link'
      WHERE r.campaign_id = $1 AND r.line > $2 ORDER BY r.line LIMIT $3`,
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

/** Uploads that never finished (the API process stopped mid-file): their rows go. */
export async function dropStaleUploads(db: Queryable, olderThanMs: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM campaigns WHERE status = 'uploading' AND created_at < now() - $1 * interval '1 millisecond'`,
    [olderThanMs],
  );
  return rowCount;
}
