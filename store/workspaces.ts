// Workspaces and their API keys. A key's secret is returned once; only its SHA-256 is stored.
import crypto from 'node:crypto';
import type { Queryable } from './db';

export const SCOPES = ['entries:rw', 'jobs:rw', 'approvals', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];
/** What an integrator's key gets unless asked otherwise: approving its own submissions is an operator's job. */
export const DEFAULT_SCOPES: Scope[] = ['entries:rw', 'jobs:rw'];

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

export async function findApiKey(db: Queryable, secret: string): Promise<ApiKeyIdentity | undefined> {
  const { rows } = await db.query<{ id: string; workspace_id: string; scopes: Scope[] }>(
    'SELECT id, workspace_id, scopes FROM api_keys WHERE secret_sha256 = $1 AND revoked_at IS NULL',
    [sha256Hex(secret)],
  );
  const row = rows[0];
  return row && { keyId: row.id, workspaceId: row.workspace_id, scopes: row.scopes };
}

export async function revokeApiKey(db: Queryable, keyId: string): Promise<boolean> {
  const r = await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [keyId]);
  return r.rowCount > 0;
}
