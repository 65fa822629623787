// The nightly reconciliation's runs (table reconciliation_runs) and which of our lines and participants each saw.
import type { Queryable } from './db';
import { iso } from './rows';

export interface RunRow {
  id: string;
  day: string;
  report_only: boolean;
  status: 'running' | 'done' | 'failed';
  lines_read: number;
  participants_read: number;
  requests: Record<string, number>;
  counts: Record<string, number>;
  actions: Record<string, number>;
  started_at: Date;
  finished_at: Date | null;
}

export const runView = (r: RunRow) => ({
  id: r.id,
  day: typeof r.day === 'string' ? r.day : iso(r.day)!.slice(0, 10),
  report_only: r.report_only,
  status: r.status,
  lines_read: r.lines_read,
  participants_read: r.participants_read,
  requests: r.requests,
  counts: r.counts,
  actions: r.actions,
  started_at: iso(r.started_at)!,
  ...(r.finished_at && { finished_at: iso(r.finished_at) }),
});
export type RunView = ReturnType<typeof runView>;

/** Starts a run; with the same id again (a retried activity), the run as first started. */
export async function startRun(db: Queryable, r: { id: string; day: string; reportOnly: boolean }): Promise<RunView> {
  await db.query(
    `INSERT INTO reconciliation_runs (id, day, report_only) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING`,
    [r.id, r.day, r.reportOnly],
  );
  return (await getRun(db, r.id))!;
}

export async function getRun(db: Queryable, id: string): Promise<RunView | undefined> {
  const { rows } = await db.query<RunRow>('SELECT *, day::text AS day FROM reconciliation_runs WHERE id = $1', [id]);
  return rows[0] && runView(rows[0]);
}

export async function recentRuns(db: Queryable, limit: number): Promise<RunView[]> {
  const { rows } = await db.query<RunRow>(
    'SELECT *, day::text AS day FROM reconciliation_runs ORDER BY started_at DESC LIMIT $1',
    [limit],
  );
  return rows.map(runView);
}

/** On how many days a run has finished: a new deployment's first nights only report, however many runs were asked. */
export async function finishedRunDays(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    "SELECT count(DISTINCT day) AS n FROM reconciliation_runs WHERE status = 'done'",
  );
  return Number(rows[0]!.n);
}

/** How many runs finished before `runId` began, and when the last two of them began (newest first). */
export async function earlierRuns(db: Queryable, runId: string): Promise<{ done: number; starts: Date[] }> {
  const { rows } = await db.query<{ started_at: Date; done: string }>(
    `SELECT started_at, count(*) OVER () AS done FROM reconciliation_runs
     WHERE status = 'done' AND started_at < (SELECT started_at FROM reconciliation_runs WHERE id = $1)
     ORDER BY started_at DESC LIMIT 2`,
    [runId],
  );
  return { done: Number(rows[0]?.done ?? 0), starts: rows.map((r) => r.started_at) };
}

export type RequestCounts = Partial<Record<'annuaire' | 'sml' | 'dns', number>>;

export async function addProgress(
  db: Queryable,
  runId: string,
  p: { lines?: number; participants?: number; requests?: RequestCounts },
): Promise<void> {
  const r = p.requests ?? {};
  await db.query(
    `UPDATE reconciliation_runs SET lines_read = lines_read + $2, participants_read = participants_read + $3,
       requests = jsonb_build_object(
         'annuaire', COALESCE((requests->>'annuaire')::int, 0) + $4,
         'sml', COALESCE((requests->>'sml')::int, 0) + $5,
         'dns', COALESCE((requests->>'dns')::int, 0) + $6)
     WHERE id = $1`,
    [runId, p.lines ?? 0, p.participants ?? 0, r.annuaire ?? 0, r.sml ?? 0, r.dns ?? 0],
  );
}

export async function finishRun(
  db: Queryable,
  runId: string,
  r: { status: 'done' | 'failed'; counts: Record<string, number>; actions: Record<string, number> },
): Promise<void> {
  await db.query(
    `UPDATE reconciliation_runs SET status = $2, counts = $3, actions = $4, finished_at = now()
     WHERE id = $1 AND status = 'running'`,
    [runId, r.status, JSON.stringify(r.counts), JSON.stringify(r.actions)],
  );
}

/** Runs left `running` by a run that did not finish (its workflow terminated) are closed as failed. */
export async function failStaleRuns(db: Queryable, exceptId: string): Promise<void> {
  await db.query(
    `UPDATE reconciliation_runs SET status = 'failed', finished_at = now() WHERE status = 'running' AND id <> $1`,
    [exceptId],
  );
}

export interface RecordedLineRow {
  address: string;
  siren: string;
  entryId: string;
  idInstance: number;
  since: Date;
}

interface LineRow {
  address_id: string;
  siren: string;
  entry_id: string;
  id_instance: string;
  since: Date;
}
const LINE_COLUMNS = 'address_id, siren, entry_id, id_instance, since';
const lineOf = (r: LineRow): RecordedLineRow => ({
  address: r.address_id,
  siren: r.siren,
  entryId: r.entry_id,
  idInstance: Number(r.id_instance),
  since: r.since,
});

/** Our records of these addresses (any case), keyed by the lower-cased address. */
export async function recordedLines(db: Queryable, addresses: string[]): Promise<Map<string, RecordedLineRow>> {
  const { rows } = await db.query<LineRow>(
    `SELECT ${LINE_COLUMNS} FROM directory_lines WHERE lower(address_id) = ANY ($1::text[])`,
    [addresses.map((a) => a.toLowerCase())],
  );
  return new Map(rows.map((r) => [r.address_id.toLowerCase(), lineOf(r)]));
}

export async function markLinesSeen(db: Queryable, runId: string, addresses: string[]): Promise<void> {
  if (addresses.length === 0) return;
  await db.query('UPDATE directory_lines SET seen_run_id = $1 WHERE address_id = ANY ($2::text[])', [runId, addresses]);
}

/** Our lines the run's pages did not show, in address order after `after`. */
export async function unseenLines(
  db: Queryable,
  runId: string,
  after: string,
  limit: number,
): Promise<RecordedLineRow[]> {
  const { rows } = await db.query<LineRow>(
    `SELECT ${LINE_COLUMNS} FROM directory_lines
     WHERE seen_run_id IS DISTINCT FROM $1 AND address_id > $2 ORDER BY address_id LIMIT $3`,
    [runId, after, limit],
  );
  return rows.map(lineOf);
}

/** Marks the participants of an SML List page that we publish there; returns those we do not (unknown to us). */
export async function markParticipantsSeen(db: Queryable, runId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<{ participant_id: string }>(
    `UPDATE peppol_participants SET seen_run_id = $1
     WHERE participant_id = ANY ($2::text[]) AND enabled AND sml_registered RETURNING participant_id`,
    [runId, ids],
  );
  const ours = new Set(rows.map((r) => r.participant_id));
  return ids.filter((id) => !ours.has(id));
}

/** The participants we publish at the SML that the run's List pages did not show, after `after`. */
export async function unseenParticipants(
  db: Queryable,
  runId: string,
  after: string,
  limit: number,
): Promise<{ participantId: string; entryId: string }[]> {
  const { rows } = await db.query<{ participant_id: string; entry_id: string }>(
    `SELECT participant_id, entry_id FROM peppol_participants
     WHERE enabled AND sml_registered AND seen_run_id IS DISTINCT FROM $1 AND participant_id > $2
     ORDER BY participant_id LIMIT $3`,
    [runId, after, limit],
  );
  return rows.map((r) => ({ participantId: r.participant_id, entryId: r.entry_id }));
}
