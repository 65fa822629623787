// A party's stored credentials: the secret sealed by the caller (platform/crypto/data-box), descriptive details in clear.
import crypto from 'node:crypto';
import type { Queryable } from './db';
import { iso } from './rows';

interface CredentialRow {
  id: string;
  entry_id: string;
  name: string;
  kind: string;
  sealed: Uint8Array;
  details: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

/** What the API shows of a credential: never the secret. */
export const credentialView = (c: CredentialRow) => ({
  name: c.name,
  kind: c.kind,
  details: c.details,
  created_at: iso(c.created_at)!,
  updated_at: iso(c.updated_at)!,
});

export async function putCredential(
  q: Queryable,
  c: {
    workspaceId: string;
    entryId: string;
    name: string;
    kind: string;
    sealed: Uint8Array;
    details: Record<string, unknown>;
  },
) {
  const { rows } = await q.query<CredentialRow>(
    `INSERT INTO credentials (id, workspace_id, entry_id, name, kind, sealed, details) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (entry_id, name) DO UPDATE SET kind = EXCLUDED.kind, sealed = EXCLUDED.sealed, details = EXCLUDED.details, updated_at = now()
     RETURNING *`,
    [crypto.randomUUID(), c.workspaceId, c.entryId, c.name, c.kind, c.sealed, JSON.stringify(c.details)],
  );
  return rows[0]!;
}

export async function listCredentials(q: Queryable, entryId: string) {
  const { rows } = await q.query<CredentialRow>('SELECT * FROM credentials WHERE entry_id = $1 ORDER BY name', [
    entryId,
  ]);
  return rows;
}

/** The sealed secret, for the activity that uses it (never for the API). */
export async function getCredential(q: Queryable, entryId: string, name: string) {
  const { rows } = await q.query<CredentialRow>('SELECT * FROM credentials WHERE entry_id = $1 AND name = $2', [
    entryId,
    name,
  ]);
  return rows[0];
}

export async function deleteCredential(q: Queryable, entryId: string, name: string): Promise<boolean> {
  return (await q.query('DELETE FROM credentials WHERE entry_id = $1 AND name = $2', [entryId, name])).rowCount > 0;
}
