// What reconciliation runs found (table drift_findings): one open finding per (kind, subject), seen again by each run
// that finds it, closed when acted on, reported, or no longer seen.
import type { Queryable } from './db';
import { eventCtes, eventParams, type EventInput } from './events';
import { afterTimeCursor, cursorMicros, decodeTimeCursor, encodeTimeCursor, iso } from './rows';

export interface FindingInput {
  kind: string;
  subject: string;
  entryId?: string;
  details: Record<string, unknown>;
}

interface Row {
  id: string;
  kind: string;
  subject: string;
  entry_id: string | null;
  workspace_id: string | null;
  details: Record<string, unknown>;
  first_seen_at: Date;
  last_seen_at: Date;
  runs: number;
  confirmed_by: string | null;
  confirmed_at: Date | null;
  outcome: string | null;
  outcome_detail: string | null;
  closed_at: Date | null;
}

export const findingView = (r: Row) => ({
  id: r.id,
  kind: r.kind,
  subject: r.subject,
  ...(r.entry_id && { entry_id: r.entry_id }),
  ...(r.workspace_id && { workspace_id: r.workspace_id }),
  details: r.details,
  runs: r.runs,
  first_seen_at: iso(r.first_seen_at)!,
  last_seen_at: iso(r.last_seen_at)!,
  ...(r.confirmed_at && { confirmed_at: iso(r.confirmed_at), confirmed_by: r.confirmed_by }),
  ...(r.outcome && { outcome: r.outcome }),
  ...(r.outcome_detail && { outcome_detail: r.outcome_detail }),
  ...(r.closed_at && { closed_at: iso(r.closed_at) }),
});
export type FindingView = ReturnType<typeof findingView>;

/** What a sighting says differs from the last one (another platform, another day): its agreement starts over. */
const CHANGED = 'drift_findings.details IS DISTINCT FROM EXCLUDED.details';

/**
 * Records what a run found: a new open finding, or the open one seen again (counted once per run; one whose details
 * changed starts its count and any confirmation over). Returns whether it is new.
 */
export async function recordFinding(db: Queryable, runId: string, f: FindingInput): Promise<boolean> {
  const { rows } = await db.query<{ fresh: boolean }>(
    `INSERT INTO drift_findings (id, kind, subject, entry_id, details, first_run_id, last_run_id)
     VALUES (gen_random_uuid(), $2, $3, $4, $5, $1, $1)
     ON CONFLICT (kind, subject) WHERE closed_at IS NULL DO UPDATE SET
       runs = CASE WHEN ${CHANGED} THEN 1 ELSE drift_findings.runs + CASE WHEN drift_findings.last_run_id = $1 THEN 0 ELSE 1 END END,
       first_run_id = CASE WHEN ${CHANGED} THEN $1 ELSE drift_findings.first_run_id END,
       first_seen_at = CASE WHEN ${CHANGED} THEN now() ELSE drift_findings.first_seen_at END,
       confirmed_by = CASE WHEN ${CHANGED} THEN NULL ELSE drift_findings.confirmed_by END,
       confirmed_at = CASE WHEN ${CHANGED} THEN NULL ELSE drift_findings.confirmed_at END,
       last_run_id = $1, last_seen_at = now(), details = EXCLUDED.details,
       entry_id = COALESCE(EXCLUDED.entry_id, drift_findings.entry_id)
     RETURNING (xmax = 0) AS fresh`,
    [runId, f.kind, f.subject, f.entryId ?? null, JSON.stringify(f.details)],
  );
  return rows[0]?.fresh === true;
}

/** The finding's `party.drift_found` event, with its webhook deliveries. */
export async function recordDriftEvent(q: Queryable, e: Omit<EventInput, 'kind'>): Promise<void> {
  await q.query(`WITH src AS (SELECT id, workspace_id FROM entries WHERE id = $1), ${eventCtes('src', 2)} SELECT 1`, [
    e.entryId,
    ...eventParams({ ...e, kind: 'party.drift_found' }),
  ]);
}

/** Open findings no run after `runId` saw again are closed `gone`: the drift went away by itself. */
export async function closeGoneFindings(db: Queryable, runId: string): Promise<number> {
  const r = await db.query(
    `UPDATE drift_findings SET outcome = 'gone', closed_at = now() WHERE closed_at IS NULL AND last_run_id <> $1`,
    [runId],
  );
  return r.rowCount;
}

/**
 * The open findings this run saw of `kinds`, after `after` in id order, with whether they may be acted on: an
 * operator confirmed it, or its first and latest sightings lie at least `agreeAfterMs` apart (two runs agree).
 */
export async function findingsOfRun(
  db: Queryable,
  runId: string,
  q: { kinds: readonly string[]; agreeAfterMs: number; after: string; limit: number },
): Promise<(FindingView & { agreed: boolean })[]> {
  const { rows } = await db.query<Row & { agreed: boolean }>(
    `SELECT f.*, e.workspace_id,
       (f.confirmed_at IS NOT NULL OR f.last_seen_at - f.first_seen_at >= $3 * interval '1 millisecond') AS agreed
     FROM drift_findings f LEFT JOIN entries e ON e.id = f.entry_id
     WHERE f.closed_at IS NULL AND f.last_run_id = $1 AND f.kind = ANY ($2::text[]) AND f.id > $4::uuid
     ORDER BY f.id LIMIT $5`,
    [runId, q.kinds, q.agreeAfterMs, q.after, q.limit],
  );
  return rows.map((r) => ({ ...findingView(r), agreed: r.agreed }));
}

/** Closes an open finding with its outcome; false when it was closed already (a retried action). */
export async function closeFinding(db: Queryable, id: string, outcome: string, detail?: string): Promise<boolean> {
  const r = await db.query(
    `UPDATE drift_findings SET outcome = $2, outcome_detail = $3, closed_at = now() WHERE id = $1 AND closed_at IS NULL`,
    [id, outcome, detail ?? null],
  );
  return r.rowCount > 0;
}

/** Notes why an open finding was not acted on (it stays open, and the next run sees it again). */
export async function noteFinding(db: Queryable, id: string, detail: string): Promise<void> {
  await db.query('UPDATE drift_findings SET outcome_detail = $2 WHERE id = $1 AND closed_at IS NULL', [id, detail]);
}

/**
 * An operator's confirmation of open findings, by id or all of a kind: the next run acts on them without waiting
 * for a second sighting. Returns those it confirmed (not those closed, or confirmed before).
 */
export async function confirmFindings(
  db: Queryable,
  which: { ids?: string[]; kind?: string },
  operatorId: string,
): Promise<FindingView[]> {
  const { rows } = await db.query<Row>(
    `UPDATE drift_findings f SET confirmed_by = $3, confirmed_at = now()
     WHERE f.closed_at IS NULL AND f.confirmed_at IS NULL
       AND ($1::uuid[] IS NULL OR f.id = ANY ($1::uuid[])) AND ($2::text IS NULL OR f.kind = $2)
     RETURNING f.*, (SELECT workspace_id FROM entries WHERE id = f.entry_id) AS workspace_id`,
    [which.ids ?? null, which.kind ?? null, operatorId],
  );
  return rows.map(findingView);
}

export async function getFinding(db: Queryable, id: string): Promise<FindingView | undefined> {
  const { rows } = await db.query<Row>(
    `SELECT f.*, e.workspace_id FROM drift_findings f LEFT JOIN entries e ON e.id = f.entry_id WHERE f.id = $1`,
    [id],
  );
  return rows[0] && findingView(rows[0]);
}

/** Findings, the last seen first, a page after `cursor`: the open ones, or all; of one kind or any. */
export async function listFindings(
  db: Queryable,
  f: { open: boolean; kind?: string; limit: number; cursor?: string },
): Promise<{ list: FindingView[]; next?: string }> {
  const after = f.cursor ? decodeTimeCursor(f.cursor) : undefined;
  const { rows } = await db.query<Row & { micros: string }>(
    `SELECT f.*, e.workspace_id, ${cursorMicros('f.last_seen_at')} AS micros
     FROM drift_findings f LEFT JOIN entries e ON e.id = f.entry_id
     WHERE ($1::boolean = false OR f.closed_at IS NULL) AND ($2::text IS NULL OR f.kind = $2)
       AND ($4::text IS NULL OR ${afterTimeCursor('f.last_seen_at', 'f.id', '$4', '$5')})
     ORDER BY f.last_seen_at DESC, f.id DESC LIMIT $3 + 1`,
    [f.open, f.kind ?? null, f.limit, after?.micros ?? null, after?.id ?? null],
  );
  const page = rows.slice(0, f.limit);
  const last = page.at(-1);
  return {
    list: page.map(findingView),
    ...(rows.length > f.limit && last && { next: encodeTimeCursor(last.micros, last.id) }),
  };
}

/** Open findings by kind: the gauge of each kind of drift. */
export async function openFindingCounts(db: Queryable): Promise<Record<string, number>> {
  const { rows } = await db.query<{ kind: string; n: string }>(
    'SELECT kind, count(*) AS n FROM drift_findings WHERE closed_at IS NULL GROUP BY kind',
  );
  return Object.fromEntries(rows.map((r) => [r.kind, Number(r.n)]));
}

/** What this run saw, by kind. */
export async function runFindingCounts(db: Queryable, runId: string): Promise<Record<string, number>> {
  const { rows } = await db.query<{ kind: string; n: string }>(
    'SELECT kind, count(*) AS n FROM drift_findings WHERE last_run_id = $1 GROUP BY kind',
    [runId],
  );
  return Object.fromEntries(rows.map((r) => [r.kind, Number(r.n)]));
}
