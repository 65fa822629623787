// Workspaces and their API keys. A key's secret is returned once; only its SHA-256 is stored.
import crypto from 'node:crypto';
import { ApiKeyCache, KEY_REVOKED_CHANNEL } from './api-key-cache';
import type { Db, Queryable } from './db';

/**
 * What a workspace's key may do. Deciding on submissions is none of them: only the platform's operators decide
 * (platform/store/operators.ts); `admin` manages the workspace's keys.
 */
export const SCOPES = ['entries:rw', 'jobs:rw', 'campaigns:rw', 'events:read', 'webhooks:rw', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];
/** What an integrator's key gets unless asked otherwise: all of its integration, not the keys. */
export const DEFAULT_SCOPES: Scope[] = ['entries:rw', 'jobs:rw', 'campaigns:rw', 'events:read', 'webhooks:rw'];

export interface ApiKeyIdentity {
  keyId: string;
  workspaceId: string;
  scopes: Scope[];
}

export const sha256Hex = (s: string): string => crypto.createHash('sha256').update(s).digest('hex');

export async function createWorkspace(db: Queryable, name: string, id: string = crypto.randomUUID()) {
  await db.query('INSERT INTO workspaces (id, name) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [id, name]);
  return { id, name };
}

/** The workspaces with this name (names are not unique in the store: a second one is refused by its creators). */
export async function workspacesNamed(db: Queryable, name: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM workspaces WHERE name = $1 ORDER BY id', [name]);
  return rows.map((r) => r.id);
}

export async function createApiKey(
  db: Queryable,
  workspaceId: string,
  opts: { name: string; scopes?: Scope[]; secret?: string },
): Promise<{ id: string; secret: string }> {
  const id = crypto.randomUUID();
  const secret = opts.secret ?? `pak_${crypto.randomBytes(32).toString('base64url')}`;
  await db.query(
    'INSERT INTO api_keys (id, workspace_id, name, secret_sha256, prefix, scopes) VALUES ($1, $2, $3, $4, $5, $6)',
    [id, workspaceId, opts.name, sha256Hex(secret), secret.slice(0, 8), opts.scopes ?? DEFAULT_SCOPES],
  );
  return { id, secret };
}

const caches = new WeakMap<Db, ApiKeyCache<ApiKeyIdentity>>();

/** The identity of an active key; recently seen keys are answered from this process's cache (api-key-cache.ts). */
export async function findApiKey(db: Db, secret: string): Promise<ApiKeyIdentity | undefined> {
  const hash = sha256Hex(secret);
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new ApiKeyCache(db)));
  const cached = cache.get(hash);
  if (cached) return cached;
  const begun = cache.begin();
  const { rows } = await db.query<{ id: string; workspace_id: string; scopes: Scope[] }>(
    'SELECT id, workspace_id, scopes FROM api_keys WHERE secret_sha256 = $1 AND revoked_at IS NULL',
    [hash],
  );
  const row = rows[0];
  const identity = row && { keyId: row.id, workspaceId: row.workspace_id, scopes: row.scopes };
  if (identity) cache.keep(hash, identity, begun);
  return identity;
}

/** Revokes a key, in every process at once: the notification is sent when the revocation commits. */
export async function revokeApiKey(db: Queryable, keyId: string): Promise<boolean> {
  const { rows } = await db.query(
    `WITH revoked AS (UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id)
     SELECT pg_notify('${KEY_REVOKED_CHANNEL}', id::text) FROM revoked`,
    [keyId],
  );
  caches.get(db as Db)?.revoked(keyId); // this process at once, not when its notification comes back
  return rows.length > 0;
}

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  created_at: string;
  revoked_at: string | null;
}

/** A workspace's keys, newest first; never their secrets. */
export async function listApiKeys(db: Queryable, workspaceId: string): Promise<ApiKeyView[]> {
  const { rows } = await db.query<{
    id: string;
    name: string;
    prefix: string;
    scopes: Scope[];
    created_at: Date;
    revoked_at: Date | null;
  }>(
    'SELECT id, name, prefix, scopes, created_at, revoked_at FROM api_keys WHERE workspace_id = $1 ORDER BY created_at DESC, id',
    [workspaceId],
  );
  return rows.map((r) => ({
    ...r,
    created_at: r.created_at.toISOString(),
    revoked_at: r.revoked_at?.toISOString() ?? null,
  }));
}

/** Revokes a key of this workspace: 'revoked', 'already' (revoked before) or 'unknown' (not this workspace's). */
export async function revokeWorkspaceKey(
  db: Queryable,
  workspaceId: string,
  keyId: string,
): Promise<'revoked' | 'already' | 'unknown'> {
  const { rows } = await db.query<{ revoked_at: Date | null }>(
    'SELECT revoked_at FROM api_keys WHERE id = $1 AND workspace_id = $2',
    [keyId, workspaceId],
  );
  if (!rows[0]) return 'unknown';
  if (rows[0].revoked_at) return 'already';
  return (await revokeApiKey(db, keyId)) ? 'revoked' : 'already';
}

export async function workspaceExists(db: Queryable, id: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM workspaces WHERE id = $1', [id])).rows.length > 0;
}

/** The scope changes migrations made to keys (platform/store/migrations/1763841400000_operators.sql). */
export async function keyScopeChanges(db: Queryable) {
  const { rows } = await db.query<{ key_id: string; workspace_id: string; change: string; reason: string }>(
    `SELECT c.key_id, k.workspace_id, concat_ws('; ', CASE WHEN c.removed <> '{}' THEN 'removed ' || array_to_string(c.removed, ', ') END,
       CASE WHEN c.added <> '{}' THEN 'added ' || array_to_string(c.added, ', ') END) AS change, c.reason
     FROM api_key_scope_changes c JOIN api_keys k ON k.id = c.key_id ORDER BY c.at, c.key_id`,
  );
  return rows;
}
