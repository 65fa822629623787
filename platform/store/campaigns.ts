// Campaigns and their rows (tables campaigns, campaign_rows, campaign_sirens): a file's rows written as it is read,
// in batches; its key set once it is read whole; the dry run's verdicts written a batch at a time; a campaign's status.
// What a started campaign registers is in campaign-launches.ts.
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
  /** A row at fault's company name as written (a valid row's is in `data`). */
  name?: string;
  /** Who signs it (domain/campaigns/row.ts: signerKeyOf), to bundle one signer's companies. */
  signerKey?: string;
}

/** Text PostgreSQL takes: a NUL a file's cell held becomes U+FFFD, which text and jsonb can store. */
const storableText = (x: string) => x.replaceAll('\u0000', '\uFFFD');
const storable = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'string' ? storableText(x) : x));

/** Rows as read; a row with faults is `blocked` at once, its faults its reasons. */
export async function insertCampaignRows(db: Queryable, campaignId: string, rows: StagedRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO campaign_rows (campaign_id, line, siren, data, faults, verdict, reasons, checked_at, signer_key, name)
     SELECT $1, t.line, t.siren, t.data, t.faults,
            CASE WHEN t.faults IS NULL THEN NULL ELSE 'blocked' END,
            CASE WHEN t.faults IS NULL THEN NULL ELSE t.faults END,
            CASE WHEN t.faults IS NULL THEN NULL ELSE now() END, t.signer_key, t.name
       FROM unnest($2::int[], $3::text[], $4::jsonb[], $5::jsonb[], $6::text[], $7::text[])
         AS t(line, siren, data, faults, signer_key, name)`,
    [
      campaignId,
      rows.map((r) => r.line),
      rows.map((r) => r.siren ?? null),
      rows.map((r) => (r.data === undefined ? null : storable(r.data))),
      rows.map((r) => (r.faults ? storable(r.faults) : null)),
      rows.map((r) => r.signerKey ?? null),
      rows.map((r) => (r.name === undefined ? null : storableText(r.name))),
    ],
  );
}

/**
 * The file read whole: the campaign takes its key and goes to the dry run. When the workspace has a campaign of
 * that key already (not cancelled), this one is dropped and that one answered (`existing`), whether its file was
 * the same or not.
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
       SELECT c.* FROM campaigns c, dropped
        WHERE c.workspace_id = dropped.workspace_id AND c.key = $2 AND c.status <> 'cancelled'`,
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
  name: string | null;
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
    `SELECT line, siren, data, name, faults, verdict, reasons, details, entry_id, job_id, launch_fault FROM campaign_rows
      WHERE campaign_id = $1 AND line > $2 AND ($4::text IS NULL OR verdict = $4)
      ORDER BY line LIMIT $3`,
    [id, page.afterLine, page.limit, page.verdict ?? null],
  );
  return rows;
}

/**
 * Moves a campaign from one of `from` to `to` (and stamps the start or the end: a started campaign cancelled ends
 * when its registrations have, campaign-launches.ts: cancelledCampaignsDone); undefined when it is in none of them
 * (the caller says why from its status).
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
            finished_at = CASE WHEN $4 = 'finished' OR ($4 = 'cancelled' AND started_at IS NULL) THEN now()
                               ELSE finished_at END
      WHERE id = $1 AND workspace_id = $2 AND status = ANY($3::text[]) RETURNING *`,
    [id, workspaceId, from, to],
  );
  if (rows[0] && (to === 'finished' || to === 'cancelled'))
    await db.query(`DELETE FROM campaign_sirens WHERE campaign_id = $1`, [id]);
  return rows[0];
}

/** Uploads that never finished (the API process stopped mid-file): their rows go. */
export async function dropStaleUploads(db: Queryable, olderThanMs: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM campaigns WHERE status = 'uploading' AND created_at < now() - $1 * interval '1 millisecond'`,
    [olderThanMs],
  );
  return rowCount;
}
