// The platform's operators (its compliance staff, each a named person), their credentials and their review-page
// sessions. A credential's secret and a session's token are returned once; only their SHA-256 is stored. Operators
// are few: every request reads its credential or session here (no cache), so a revocation holds at once.
import crypto from 'node:crypto';
import type { Queryable } from './db';
import { iso } from './rows';
import { sha256Hex } from './workspaces';

export const OPERATOR_ROLES = ['decide', 'admin'] as const;
/** `decide`: approve or reject submissions, read what they are decided on; `admin`: create operators and credentials. */
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

/** Told apart from a workspace key (`pak_`) by its prefix. */
export const CREDENTIAL_PREFIX = 'opc_';

export interface OperatorIdentity {
  operatorId: string;
  name: string;
  roles: OperatorRole[];
  credentialId: string;
}

interface IdentityRow {
  operator_id: string;
  name: string;
  roles: OperatorRole[];
  credential_id: string;
}
const identity = (r: IdentityRow): OperatorIdentity => ({
  operatorId: r.operator_id,
  name: r.name,
  roles: r.roles,
  credentialId: r.credential_id,
});

export async function insertOperator(
  db: Queryable,
  input: { name: string; roles: OperatorRole[]; createdBy: string | null },
): Promise<{ id: string }> {
  const id = crypto.randomUUID();
  await db.query('INSERT INTO operators (id, name, roles, created_by) VALUES ($1, $2, $3, $4)', [
    id,
    input.name,
    input.roles,
    input.createdBy,
  ]);
  return { id };
}

export async function insertCredential(
  db: Queryable,
  input: { operatorId: string; createdBy: string | null; validDays: number },
): Promise<{ id: string; secret: string; expiresAt: string }> {
  const id = crypto.randomUUID();
  const secret = `${CREDENTIAL_PREFIX}${crypto.randomBytes(32).toString('base64url')}`;
  const { rows } = await db.query<{ expires_at: Date }>(
    `INSERT INTO operator_credentials (id, operator_id, secret_sha256, prefix, created_by, expires_at)
     VALUES ($1, $2, $3, $4, $5, now() + make_interval(days => $6::int)) RETURNING expires_at`,
    [id, input.operatorId, sha256Hex(secret), secret.slice(0, 8), input.createdBy, input.validDays],
  );
  return { id, secret, expiresAt: iso(rows[0]!.expires_at)! };
}

const IDENTITY_COLUMNS = 'o.id AS operator_id, o.name, o.roles, c.id AS credential_id';
const CREDENTIAL_VALID = 'c.revoked_at IS NULL AND c.expires_at > now()';

/** The operator a credential authenticates: none when unknown, revoked or expired. */
export async function findCredential(db: Queryable, secret: string): Promise<OperatorIdentity | undefined> {
  const { rows } = await db.query<IdentityRow>(
    `SELECT ${IDENTITY_COLUMNS} FROM operator_credentials c JOIN operators o ON o.id = c.operator_id
     WHERE c.secret_sha256 = $1 AND ${CREDENTIAL_VALID}`,
    [sha256Hex(secret)],
  );
  return rows[0] && identity(rows[0]);
}

/** Revokes a credential, with the sessions it opened. False when it was not active. */
export async function revokeCredential(db: Queryable, credentialId: string): Promise<boolean> {
  const { rows } = await db.query(
    `WITH revoked AS (
       UPDATE operator_credentials SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id
     ), ended AS (
       UPDATE operator_sessions SET ended_at = now()
       WHERE credential_id IN (SELECT id FROM revoked) AND ended_at IS NULL
     )
     SELECT id FROM revoked`,
    [credentialId],
  );
  return rows.length > 0;
}

/** A session opened with a credential: its token, returned this once. */
export async function openSession(db: Queryable, credentialId: string): Promise<string> {
  const token = crypto.randomBytes(32).toString('base64url');
  await db.query('INSERT INTO operator_sessions (token_sha256, credential_id) VALUES ($1, $2)', [
    sha256Hex(token),
    credentialId,
  ]);
  return token;
}

/**
 * The operator of a session still open, its idle time counted from now on: none past `idleMs` without a request, when
 * signed out, or when its credential was revoked or has expired.
 */
export async function touchSession(
  db: Queryable,
  token: string,
  idleMs: number,
): Promise<OperatorIdentity | undefined> {
  const { rows } = await db.query<IdentityRow>(
    `UPDATE operator_sessions s SET last_seen_at = now()
     FROM operator_credentials c JOIN operators o ON o.id = c.operator_id
     WHERE s.token_sha256 = $1 AND s.ended_at IS NULL AND s.last_seen_at > now() - make_interval(secs => $2::float8)
       AND c.id = s.credential_id AND ${CREDENTIAL_VALID}
     RETURNING ${IDENTITY_COLUMNS}`,
    [sha256Hex(token), idleMs / 1000],
  );
  return rows[0] && identity(rows[0]);
}

export async function endSession(db: Queryable, token: string): Promise<void> {
  await db.query('UPDATE operator_sessions SET ended_at = now() WHERE token_sha256 = $1 AND ended_at IS NULL', [
    sha256Hex(token),
  ]);
}

export interface CredentialView {
  id: string;
  prefix: string;
  created_at: string;
  created_by: string | null;
  expires_at: string;
  revoked_at: string | null;
}

export interface OperatorView {
  id: string;
  name: string;
  roles: OperatorRole[];
  created_at: string;
  created_by: string | null;
  credentials: CredentialView[];
}

/** Every operator with their credentials, never their secrets; by name. */
export async function listOperators(db: Queryable): Promise<OperatorView[]> {
  const { rows } = await db.query<Omit<OperatorView, 'created_at' | 'credentials'> & { created_at: Date }>(
    'SELECT id, name, roles, created_at, created_by FROM operators ORDER BY name, id',
  );
  const creds = await db.query<{
    id: string;
    operator_id: string;
    prefix: string;
    created_at: Date;
    created_by: string | null;
    expires_at: Date;
    revoked_at: Date | null;
  }>(
    'SELECT id, operator_id, prefix, created_at, created_by, expires_at, revoked_at FROM operator_credentials ORDER BY created_at DESC, id',
  );
  return rows.map((o) => ({
    ...o,
    created_at: iso(o.created_at)!,
    credentials: creds.rows
      .filter((c) => c.operator_id === o.id)
      .map(({ operator_id: _, ...c }) => ({
        ...c,
        created_at: iso(c.created_at)!,
        expires_at: iso(c.expires_at)!,
        revoked_at: iso(c.revoked_at) ?? null,
      })),
  }));
}

export async function operatorExists(db: Queryable, id: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM operators WHERE id = $1', [id])).rows.length > 0;
}

/** The operator a credential belongs to, if the credential exists. */
export async function credentialOwner(db: Queryable, credentialId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ operator_id: string }>(
    'SELECT operator_id FROM operator_credentials WHERE id = $1',
    [credentialId],
  );
  return rows[0]?.operator_id;
}
