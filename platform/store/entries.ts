// Long file: entries, meta rows and state history together; issue 42 splits the store by table.
// Entries (a GOBL party per entry), their meta rows and their state history.
import type { Queryable } from './db';
import { waitingForSql, type WaitingFor } from './waiting-for';
import { eventCtes, eventParams } from './events';
import { runEffect, stepConfig, type StatementEffect } from './statement-effect';
import { PARTY_STATES } from '../../contract/job';
import { decodeCursor, encodeCursor, iso, isUniqueViolation } from './rows';

/** A request that conflicts with what is stored; `code` is its stable reason (web/http/problem-codes.ts). */
export class ConflictError extends Error {
  constructor(
    message: string,
    readonly code:
      'key-taken' | 'id-taken' | 'id-not-available' | 'job-running' | 'registration-running' | 'meta-ref-taken',
  ) {
    super(message);
  }
}

export interface MetaInput {
  src: string;
  ref?: string | null;
  value?: unknown;
  /** A secret value sealed by the caller (platform/crypto/data-box), `value` then holding its masked form. */
  sealed?: Uint8Array | null;
  link_url?: string | null;
  link_scope?: string | null;
  indexed?: boolean;
  shared?: boolean;
}

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

interface MetaRow {
  entry_id: string;
  workspace_id: string;
  key: string;
  src: string;
  ref: string | null;
  value: unknown;
  sealed?: Uint8Array | null;
  link_url: string | null;
  link_scope: string | null;
  indexed: boolean;
  shared: boolean;
  created_at: Date;
  updated_at: Date;
}

/**
 * Meta keys whose value is a secret (domain/party/peppol-migration.ts): stored sealed (column `sealed`), the value
 * column holding it masked — each key replaced by MASKED_SECRET, the participant ids of an object form kept.
 */
export const SECRET_META_KEYS: ReadonlySet<string> = new Set(['peppol-migration-key']);
export const MASKED_SECRET = '********';

/** A secret meta value as shown: an object's values masked (its keys kept), anything else but null masked whole. */
export function maskedMetaValue(value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (typeof value === 'object' && !Array.isArray(value))
    return Object.fromEntries(Object.keys(value).map((k) => [k, MASKED_SECRET]));
  return MASKED_SECRET;
}

export function metaView(m: MetaRow) {
  // A secret is never shown: masked again here, for rows written before secrets were sealed (sealClearSecretMeta).
  const value = SECRET_META_KEYS.has(m.key) ? maskedMetaValue(m.value) : m.value;
  return {
    id: `${m.entry_id}:${m.src}:${m.key}`,
    entry_id: m.entry_id,
    src: m.src,
    key: m.key,
    ...(m.ref != null && { ref: m.ref }),
    ...(value != null && { value }),
    ...(m.link_url != null && { link_url: m.link_url }),
    ...(m.link_scope != null && { link_scope: m.link_scope }),
    indexed: m.indexed,
    shared: m.shared,
    created_at: iso(m.created_at),
    updated_at: iso(m.updated_at),
  };
}

export type MetaView = ReturnType<typeof metaView>;

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

async function metaOf(db: Queryable, entryIds: string[]): Promise<MetaRow[]> {
  if (entryIds.length === 0) return [];
  const { rows } = await db.query<MetaRow>(
    'SELECT * FROM entry_meta WHERE entry_id = ANY($1::uuid[]) ORDER BY created_at, key',
    [entryIds],
  );
  return rows;
}

export async function getEntryRow(db: Queryable, workspaceId: string, id: string): Promise<EntryRow | undefined> {
  const { rows } = await db.query<EntryRow>('SELECT * FROM entries WHERE id = $1 AND workspace_id = $2', [
    id,
    workspaceId,
  ]);
  return rows[0];
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
  opts: { limit: number; cursor?: string; ascending?: boolean; folder?: string },
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

/** The parameters of metaUpsert, in its order. */
const metaParams = (entryId: string, key: string, m: MetaInput): unknown[] => [
  entryId,
  key,
  m.src,
  m.ref ?? null,
  m.value === undefined ? null : JSON.stringify(m.value),
  m.link_url ?? null,
  m.link_scope ?? null,
  m.indexed ?? false,
  m.shared ?? false,
  m.sealed ?? null,
];

/** The upsert of a meta row from its ten parameters from `$first`, where `condition` holds. */
function metaUpsert(first: number, condition = 'true'): string {
  const [entry, key, src, ref, value, url, scope, indexed, shared, sealed] = Array.from(
    { length: 10 },
    (_, i) => `$${first + i}`,
  );
  return `INSERT INTO entry_meta (entry_id, workspace_id, key, src, ref, value, link_url, link_scope, indexed, shared, sealed)
       SELECT id, workspace_id, ${key}::text, ${src}::text, ${ref}::text, ${value}::jsonb, ${url}::text, ${scope}::text, ${indexed}::boolean, ${shared}::boolean, ${sealed}::bytea
       FROM entries WHERE id = ${entry}::uuid AND ${condition}
       ON CONFLICT (entry_id, key) DO UPDATE SET src = EXCLUDED.src, ref = EXCLUDED.ref, value = EXCLUDED.value,
         link_url = EXCLUDED.link_url, link_scope = EXCLUDED.link_scope, indexed = EXCLUDED.indexed,
         shared = EXCLUDED.shared, sealed = EXCLUDED.sealed, updated_at = now()`;
}

/**
 * Sets the meta row as a statement's effect (CTE `meta_put`) unless the row there already holds `m.value` (its value
 * contains it); its result says whether it wrote.
 */
export function putMetaUnlessHeld(entryId: string, key: string, m: MetaInput): StatementEffect {
  return {
    params: metaParams(entryId, key, m),
    result: 'EXISTS (SELECT 1 FROM meta_put)',
    ctes: (first, guard) => `meta_put AS (
       ${metaUpsert(
         first,
         `${guard} AND NOT EXISTS (
         SELECT 1 FROM entry_meta WHERE entry_id = $${first}::uuid AND key = $${first + 1}::text AND value @> $${first + 4}::jsonb)`,
       )}
       RETURNING 1
     )`,
  };
}

/** Sets an entry's meta row; the row takes the entry's workspace, in which a ref must be unique. */
export async function putMeta(db: Queryable, entryId: string, key: string, m: MetaInput): Promise<MetaView> {
  try {
    const { rows } = await db.query<MetaRow>(`${metaUpsert(1)} RETURNING *`, metaParams(entryId, key, m));
    if (!rows[0]) throw new Error(`putMeta: entry ${entryId} does not exist`); // callers check the entry first
    return metaView(rows[0]);
  } catch (err) {
    const constraint = (err as { constraint?: string }).constraint;
    if (isUniqueViolation(err) && constraint === 'entry_meta_ref_per_workspace') {
      throw new ConflictError(`meta ref "${m.ref}" is already used in this workspace`, 'meta-ref-taken');
    }
    throw err;
  }
}

/** The workspace's meta row of `key` whose ref is `ref` (a ref is unique in a workspace). */
export async function getMetaByRef(
  db: Queryable,
  workspaceId: string,
  key: string,
  ref: string,
): Promise<MetaView | undefined> {
  const { rows } = await db.query<MetaRow>(
    'SELECT * FROM entry_meta WHERE workspace_id = $1 AND ref = $2 AND key = $3',
    [workspaceId, ref, key],
  );
  return rows[0] && metaView(rows[0]);
}

export async function getMeta(db: Queryable, entryId: string, key: string): Promise<MetaView | undefined> {
  const { rows } = await db.query<MetaRow>('SELECT * FROM entry_meta WHERE entry_id = $1 AND key = $2', [entryId, key]);
  return rows[0] && metaView(rows[0]);
}

/**
 * A secret meta row as stored, for the service's own use (never the API): its sealed value, or — a row written before
 * secrets were sealed — its value in clear.
 */
export async function getSecretMeta(
  db: Queryable,
  entryId: string,
  key: string,
): Promise<{ sealed: Uint8Array | null; value: unknown } | undefined> {
  const { rows } = await db.query<{ sealed: Uint8Array | null; value: unknown }>(
    'SELECT sealed, value FROM entry_meta WHERE entry_id = $1 AND key = $2',
    [entryId, key],
  );
  return rows[0];
}

/**
 * The data migration of secret meta rows written in clear (before they were sealed): each sealed by `seal` (given
 * the entry and the value), its value masked. A row changed meanwhile is left to the write that changed it. Returns
 * how many rows were sealed.
 */
export async function sealClearSecretMeta(
  db: Queryable,
  seal: (entryId: string, key: string, value: unknown) => Uint8Array,
): Promise<number> {
  const { rows } = await db.query<{ entry_id: string; key: string; value: unknown }>(
    'SELECT entry_id, key, value FROM entry_meta WHERE key = ANY($1::text[]) AND sealed IS NULL AND value IS NOT NULL',
    [[...SECRET_META_KEYS]],
  );
  let sealed = 0;
  for (const r of rows) {
    const { rowCount } = await db.query(
      `UPDATE entry_meta SET sealed = $3, value = $4::jsonb
       WHERE entry_id = $1 AND key = $2 AND sealed IS NULL AND value = $5::jsonb`,
      [
        r.entry_id,
        r.key,
        seal(r.entry_id, r.key, r.value),
        JSON.stringify(maskedMetaValue(r.value)),
        JSON.stringify(r.value),
      ],
    );
    sealed += rowCount;
  }
  return sealed;
}

export async function deleteMeta(db: Queryable, entryId: string, key: string): Promise<boolean> {
  const r = await db.query('DELETE FROM entry_meta WHERE entry_id = $1 AND key = $2', [entryId, key]);
  return r.rowCount > 0;
}

/** A party's state set by a job's step (silo.state). */
export interface StateChange {
  entryId: string;
  state: string;
  jobId: string;
  stepId: string;
  faults?: unknown[];
}

/**
 * The state change as a statement's effect: the state row (once per job step, as the activity may run twice), the
 * entry's state and its `party.state_changed` event, written only where `guard` holds; its result says whether
 * this call changed anything.
 */
export function stateEffect(s: StateChange): StatementEffect {
  return stateEffectOf(s, s.state, (param) => `${param}::text`);
}

/**
 * The state change a `silo.state` step's definition configures, read in the step's journal statement (writeJournal's
 * `step`): refused as `invalid-config` unless it is a party state. Its result: [changed, the state].
 */
export function configuredStateEffect(s: Omit<StateChange, 'state'>): StatementEffect {
  const state = `(${stepConfig('state')})`;
  const effect = stateEffectOf(s, PARTY_STATES, () => state); // the state's parameter: the states it may be
  return {
    ...effect,
    result: `json_build_array(${effect.result}, ${state})`,
    requires: {
      holds: (first) => `COALESCE(${state} = ANY ($${first + 1}::text[]), false)`,
      type: 'invalid-config',
      message: `silo.state needs config.state, one of ${PARTY_STATES.join(', ')}`,
    },
  };
}

function stateEffectOf(
  s: Omit<StateChange, 'state'>,
  stateParam: unknown,
  stateSql: (param: string) => string,
): StatementEffect {
  const faults = JSON.stringify(s.faults ?? []);
  const event = eventParams({ kind: 'party.state_changed', entryId: s.entryId, jobId: s.jobId, data: { faults } });
  return {
    params: [s.entryId, stateParam, s.jobId, s.stepId, faults, ...event],
    result: 'EXISTS (SELECT 1 FROM recorded)',
    ctes(first, guard) {
      const [entry, job, step, faultsP] = [0, 2, 3, 4].map((i) => `$${first + i}`);
      const state = stateSql(`$${first + 1}`);
      const payload = `$${first + 8}::jsonb || jsonb_build_object('state', ${state})`;
      return `recorded AS (
       INSERT INTO entry_states (entry_id, state, job_id, step_id, faults)
       SELECT ${entry}::uuid, ${state}, ${job}::uuid, ${step}::text, ${faultsP}::jsonb WHERE ${guard}
       ON CONFLICT (job_id, step_id) DO NOTHING
       RETURNING entry_id
     ), entry AS (
       UPDATE entries SET state = ${state}, faults = ${faultsP}::jsonb, updated_at = now() WHERE id IN (SELECT entry_id FROM recorded)
       RETURNING id, workspace_id
     ), ${eventCtes('entry', first + 5, payload, 'state_event')}`;
    },
  };
}

/**
 * Sets the party's state with its event, in one statement. A second call for the same (job, step) changes nothing
 * (`changed` false), so a retried activity cannot move the state twice.
 */
export async function recordState(db: Queryable, s: StateChange): Promise<{ changed: boolean }> {
  return { changed: (await runEffect(db, stateEffect(s))) === true };
}

export async function stateHistory(db: Queryable, entryId: string) {
  const { rows } = await db.query<{ state: string; job_id: string | null; step_id: string | null; created_at: Date }>(
    'SELECT state, job_id, step_id, created_at FROM entry_states WHERE entry_id = $1 ORDER BY id',
    [entryId],
  );
  return rows.map((r) => ({ state: r.state, job_id: r.job_id, step_id: r.step_id, at: iso(r.created_at) }));
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

/** Marks the meta row `key` of one job (its `value.job_id`) cancelled, leaving a later job's row alone. */
export async function markJobMetaCancelled(q: Queryable, entryId: string, key: string, jobId: string): Promise<void> {
  await q.query(
    `UPDATE entry_meta SET value = value || '{"cancelled": true}'::jsonb, updated_at = now()
     WHERE entry_id = $1 AND key = $2 AND value->>'job_id' = $3`,
    [entryId, key, jobId],
  );
}
