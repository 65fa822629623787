// A campaign's dry run in the store: the rows still to judge, the SIRENs claimed for it (table campaign_sirens), what
// our store knows of a row's SIREN (held here, being registered), the verdicts written a batch at a time, its end.
import { LAUNCHED_VERDICTS } from './campaign-launches';
import type { Queryable } from './db';

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
       RETURNING 1),
     -- A row that will not be registered (blocked, already ours) holds its SIREN for no one.
     released AS (
       DELETE FROM campaign_sirens s USING unnest($2::int[], $3::text[]) AS t(line, verdict)
        WHERE s.campaign_id = $1 AND s.line = t.line AND NOT (t.verdict = ANY($8::text[])))
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
      LAUNCHED_VERDICTS,
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
