// An entry's meta rows: what the API and the steps attach to a party (the signer's link, the mandate's scope, a
// Peppol migration key), unique by key and by public ref; secrets among them sealed and shown masked.
import type { Queryable } from './db';
import { type StatementEffect } from './statement-effect';
import { iso, isUniqueViolation } from './rows';
import { ConflictError } from './conflict';

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

export interface MetaRow {
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

export async function metaOf(db: Queryable, entryIds: string[]): Promise<MetaRow[]> {
  if (entryIds.length === 0) return [];
  const { rows } = await db.query<MetaRow>(
    'SELECT * FROM entry_meta WHERE entry_id = ANY($1::uuid[]) ORDER BY created_at, key',
    [entryIds],
  );
  return rows;
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
 * Sets the meta row as a statement's effect (CTE `meta_set`) where `condition` holds: SQL, given the number of the
 * effect's first parameter (the entry id; the key next, the value fifth). Its result says whether it wrote.
 */
export function putMetaWhere(
  entryId: string,
  key: string,
  m: MetaInput,
  condition: (first: number) => string,
): StatementEffect {
  return {
    params: metaParams(entryId, key, m),
    result: 'EXISTS (SELECT 1 FROM meta_set)',
    ctes: (first, guard) => `meta_set AS (${metaUpsert(first, `${guard} AND ${condition(first)}`)} RETURNING 1)`,
  };
}

/** putMetaWhere unless the row there already holds `m.value` (its value contains it). */
export const putMetaUnlessHeld = (entryId: string, key: string, m: MetaInput): StatementEffect =>
  putMetaWhere(
    entryId,
    key,
    m,
    (first) => `NOT EXISTS (
       SELECT 1 FROM entry_meta WHERE entry_id = $${first}::uuid AND key = $${first + 1}::text AND value @> $${first + 4}::jsonb)`,
  );

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

/** Marks the meta row `key` of one job (its `value.job_id`) cancelled, leaving a later job's row alone. */
export async function markJobMetaCancelled(q: Queryable, entryId: string, key: string, jobId: string): Promise<void> {
  await q.query(
    `UPDATE entry_meta SET value = value || '{"cancelled": true}'::jsonb, updated_at = now()
     WHERE entry_id = $1 AND key = $2 AND value->>'job_id' = $3`,
    [entryId, key, jobId],
  );
}
