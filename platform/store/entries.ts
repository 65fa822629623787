// Entries: a GOBL party per entry, found by id, key or approval link, paged, updated. Their meta rows are in
// entry-meta.ts, their state and its history in entry-states.ts.
import type { Queryable } from './db';
import { waitingForSql, type WaitingFor } from './waiting-for';
import { eventCtes, eventParams } from './events';
import { decodeCursor, encodeCursor, iso, isUniqueViolation } from './rows';
import { metaOf, metaView, type MetaRow } from './entry-meta';
import { ConflictError } from './conflict';

interface EntryRow {
  id: string;
  seq: string;
  workspace_id: string;
  key: string | null;
  folder: string | null;
  doc_schema: string;
  data: unknown;
  siren: string | null;
  state: string | null;
  faults: unknown[];
  /** the problems of a document kept invalid (allow_invalid), null when it is valid */
  draft_faults: unknown[] | null;
  created_at: Date;
  updated_at: Date;
  /** read with ENTRY_JOBS */
  current_job?: JobRef | null;
  last_job?: JobRef | null;
}

/** A job of the entry as its view names it. */
export interface JobRef {
  id: string;
  workflow_id: string;
  status: string;
  waiting_for?: WaitingFor;
  /** With waiting_for effective-date: the day. */
  effective_on?: string;
}

/** The entry's running job and its last ended one, as columns of a query over `entries e`. */
const ENTRY_JOBS = `,
  (SELECT json_strip_nulls(json_build_object('id', j.id, 'workflow_id', j.workflow_id, 'status', j.status, 'waiting_for', ${waitingForSql('j')},
     'effective_on', CASE WHEN j.status = 'WAIT' THEN to_char(j.waits_until, 'YYYY-MM-DD') END)) FROM jobs j
   WHERE j.silo_entry_id = e.id AND j.completed_at IS NULL ORDER BY j.created_at DESC LIMIT 1) AS current_job,
  (SELECT json_build_object('id', j.id, 'workflow_id', j.workflow_id, 'status', j.status) FROM jobs j
   WHERE j.silo_entry_id = e.id AND j.completed_at IS NOT NULL ORDER BY j.created_at DESC, j.id DESC LIMIT 1) AS last_job`;

function entryView(e: EntryRow, meta: MetaRow[], withData: boolean) {
  return {
    id: e.id,
    ...(e.key != null && { key: e.key }),
    ...(e.folder != null && { folder: e.folder }),
    doc_schema: e.doc_schema,
    ...(e.state != null && { state: e.state }),
    ...(e.current_job?.waiting_for && { waiting_for: e.current_job.waiting_for }),
    ...(e.current_job?.effective_on && { effective_on: e.current_job.effective_on }),
    faults: [...e.faults, ...(e.draft_faults ?? [])],
    ...(e.current_job && { current_job: e.current_job }),
    ...(e.last_job && { last_job: e.last_job }),
    meta: meta.map(metaView),
    ...(withData && { data: e.data }),
    created_at: iso(e.created_at),
    updated_at: iso(e.updated_at),
  };
}

export type EntryView = ReturnType<typeof entryView>;

/**
 * Ids RFC 9562 reserves as special values, not identifiers: refused as entry and job ids with the same answer as an
 * id another workspace holds, so that answer tells nothing about other workspaces.
 */
export const RESERVED_IDS = ['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff'];

/** The refusal of an id that is reserved or held by another workspace (ids are unique across the service). */
export const idNotAvailable = (id: string) => `id ${id} is not available: choose another id`;

export async function insertEntry(
  db: Queryable,
  e: {
    id: string;
    workspaceId: string;
    key?: string;
    folder?: string;
    docSchema: string;
    data: unknown;
    siren?: string;
  },
): Promise<EntryView> {
  let rows: EntryRow[];
  try {
    // ON CONFLICT (id) DO NOTHING rather than a unique violation: the statement stays harmless inside a transaction.
    ({ rows } = await db.query<EntryRow>(
      `INSERT INTO entries (id, workspace_id, key, folder, doc_schema, data, siren)
       SELECT $1, $2, $3, $4, $5, $6, $7 WHERE NOT ($1::uuid = ANY ($8::uuid[]))
       ON CONFLICT (id) DO NOTHING RETURNING *`,
      [
        e.id,
        e.workspaceId,
        e.key ?? null,
        e.folder ?? null,
        e.docSchema,
        JSON.stringify(e.data),
        e.siren ?? null,
        RESERVED_IDS,
      ],
    ));
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError(`an entry with key "${e.key}" already exists`, 'key-taken');
    throw err;
  }
  if (rows[0]) return entryView(rows[0], [], true);
  // Only the caller's own workspace may learn that the id is taken.
  if (await getEntryRow(db, e.workspaceId, e.id))
    throw new ConflictError(`an entry with id ${e.id} already exists`, 'id-taken');
  throw new ConflictError(idNotAvailable(e.id), 'id-not-available');
}

export async function getEntryRow(db: Queryable, workspaceId: string, id: string): Promise<EntryRow | undefined> {
  const { rows } = await db.query<EntryRow>('SELECT * FROM entries WHERE id = $1 AND workspace_id = $2', [
    id,
    workspaceId,
  ]);
  return rows[0];
}

/** The workspace an entry belongs to: the platform's operators work across workspaces, by entry id. */
export async function workspaceOfEntry(db: Queryable, id: string): Promise<string | undefined> {
  const { rows } = await db.query<{ workspace_id: string }>('SELECT workspace_id FROM entries WHERE id = $1', [id]);
  return rows[0]?.workspace_id;
}

export async function getEntry(db: Queryable, workspaceId: string, id: string): Promise<EntryView | undefined> {
  const { rows } = await db.query<EntryRow>(
    `SELECT e.*${ENTRY_JOBS} FROM entries e WHERE e.id = $1 AND e.workspace_id = $2`,
    [id, workspaceId],
  );
  const row = rows[0];
  return row && entryView(row, await metaOf(db, [row.id]), true);
}

export async function getEntryByKey(db: Queryable, workspaceId: string, key: string): Promise<EntryView | undefined> {
  const { rows } = await db.query<EntryRow>(
    `SELECT e.*${ENTRY_JOBS} FROM entries e WHERE e.key = $1 AND e.workspace_id = $2`,
    [key, workspaceId],
  );
  const row = rows[0];
  return row && entryView(row, await metaOf(db, [row.id]), true);
}

export async function listEntries(
  db: Queryable,
  workspaceId: string,
  opts: { limit: number; cursor?: string; ascending?: boolean; folder?: string; state?: string },
): Promise<{ list: EntryView[]; next_cursor?: string }> {
  const after = opts.cursor ? decodeCursor(opts.cursor) : undefined;
  const cmp = opts.ascending ? '>' : '<';
  const order = opts.ascending ? 'ASC' : 'DESC';
  const params: unknown[] = [workspaceId, opts.limit + 1];
  let where = 'workspace_id = $1';
  if (after) {
    params.push(after);
    where += ` AND seq ${cmp} $3::bigint`;
  }
  if (opts.folder) {
    params.push(opts.folder);
    where += ` AND folder = $${params.length}`;
  }
  if (opts.state) {
    params.push(opts.state);
    where += ` AND state = $${params.length}`;
  }
  const { rows } = await db.query<EntryRow>(
    `SELECT e.*${ENTRY_JOBS} FROM entries e WHERE ${where} ORDER BY seq ${order} LIMIT $2`,
    params,
  );
  const page = rows.slice(0, opts.limit);
  const meta = await metaOf(
    db,
    page.map((r) => r.id),
  );
  const list = page.map((r) =>
    entryView(
      r,
      meta.filter((m) => m.entry_id === r.id),
      false,
    ),
  );
  const last = page.at(-1);
  return { list, ...(rows.length > opts.limit && last && { next_cursor: encodeCursor(last.seq) }) };
}

/** The fault code of a party document kept invalid (allow_invalid): no registration starts until it is fixed. */
export const INVALID_DATA = 'invalid-data';

/** The entry, locked until the transaction ends: a change reads, checks and writes it without losing another. */
export async function lockEntryRow(q: Queryable, workspaceId: string, id: string): Promise<EntryRow | undefined> {
  const { rows } = await q.query<EntryRow>('SELECT * FROM entries WHERE id = $1 AND workspace_id = $2 FOR UPDATE', [
    id,
    workspaceId,
  ]);
  return rows[0];
}

/** Whether a registration of the entry has started: a mandate was issued for it, or a registration job recorded. */
export async function registrationStarted(q: Queryable, entryId: string): Promise<boolean> {
  const { rows } = await q.query<{ started: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM mandate_numbers WHERE entry_id = $1)
         OR EXISTS (SELECT 1 FROM jobs WHERE silo_entry_id = $1 AND registers_siren IS NOT NULL) AS started`,
    [entryId],
  );
  return rows[0]!.started;
}

/**
 * Writes a changed party document (checked by the caller) with its `party.updated` event, in one statement.
 * `faults`: the document's validation faults (a draft kept with allow_invalid), replacing earlier ones; none when valid.
 */
export async function writeEntryUpdate(
  q: Queryable,
  u: {
    id: string;
    data: unknown;
    siren: string | null;
    folder?: string;
    faults: unknown[];
    event: Record<string, unknown>;
  },
): Promise<EntryView> {
  const { rows } = await q.query<EntryRow>(
    `WITH entry AS (
       UPDATE entries SET data = $2, siren = $3, folder = COALESCE($4, folder), updated_at = now(), draft_faults = $5::jsonb
       WHERE id = $1 RETURNING *
     ), ${eventCtes('entry', 6)}
     SELECT e.*${ENTRY_JOBS} FROM entry e`,
    [
      u.id,
      JSON.stringify(u.data),
      u.siren,
      u.folder ?? null,
      u.faults.length ? JSON.stringify(u.faults) : null,
      ...eventParams({ kind: 'party.updated', entryId: u.id, data: u.event }),
    ],
  );
  return entryView(rows[0]!, await metaOf(q, [u.id]), true);
}

/** Replaces an entry's party document (already validated by the caller). */
export async function updateEntryData(db: Queryable, workspaceId: string, id: string, data: unknown): Promise<void> {
  await db.query('UPDATE entries SET data = $3, updated_at = now() WHERE id = $1 AND workspace_id = $2', [
    id,
    workspaceId,
    JSON.stringify(data),
  ]);
}

/**
 * The entry whose wizard link carries `ref` (the `approval-link` meta the mandate step published). The only read by
 * ref across workspaces: these refs are unique service-wide (index entry_meta_approval_ref), callers' refs are not.
 */
export async function entryByApprovalRef(
  db: Queryable,
  ref: string,
): Promise<{ workspaceId: string; entryId: string; cancelled: boolean } | undefined> {
  const { rows } = await db.query<{ workspace_id: string; entry_id: string; cancelled: boolean }>(
    `SELECT workspace_id, entry_id, coalesce((value->>'cancelled')::boolean, false) AS cancelled
     FROM entry_meta WHERE ref = $1 AND key = 'approval-link' AND src = 'gov-fr'`,
    [ref],
  );
  const r = rows[0];
  return r && { workspaceId: r.workspace_id, entryId: r.entry_id, cancelled: r.cancelled };
}
