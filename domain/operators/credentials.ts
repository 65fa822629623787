// The platform's operators and their credentials, as an operator-admin (or the command line, for the first one)
// manages them. A credential is shown once, expires after CREDENTIAL_VALID_DAYS, and is revocable; each creation and
// revocation is in the access log (who did it, for whom).
import type { Db, Queryable } from '../../platform/store/db';
import {
  credentialOwner,
  insertCredential,
  insertOperator,
  operatorExists,
  revokeCredential,
  type OperatorRole,
} from '../../platform/store/operators';
import { recordAccess } from '../../platform/store/operator-access-log';
import { DomainError } from '../errors';

export const CREDENTIAL_VALID_DAYS = 90;

/** Who creates or revokes: an operator-admin's id, or null for the command line. */
type Actor = string | null;

/** A new credential for an existing operator; its secret is in this answer only. */
export async function issueCredential(db: Db, by: Actor, operatorId: string) {
  if (!(await operatorExists(db, operatorId))) throw new DomainError('not-found', `operator ${operatorId} not found`);
  return db.tx((q) => newCredential(q, by, operatorId));
}

async function newCredential(db: Queryable, by: Actor, operatorId: string) {
  const c = await insertCredential(db, { operatorId, createdBy: by, validDays: CREDENTIAL_VALID_DAYS });
  await recordAccess(db, {
    operatorId: by,
    action: 'credential-created',
    detail: { operator_id: operatorId, credential_id: c.id, expires_at: c.expiresAt },
  });
  return {
    id: c.id,
    operator_id: operatorId,
    credential: c.secret,
    prefix: c.secret.slice(0, 8),
    expires_at: c.expiresAt,
  };
}

/** A new operator (a named person) and their first credential. */
export async function createOperator(db: Db, by: Actor, input: { name: string; roles: OperatorRole[] }) {
  return db.tx(async (q) => {
    const { id } = await insertOperator(q, { ...input, createdBy: by });
    await recordAccess(q, { operatorId: by, action: 'operator-created', detail: { operator_id: id, ...input } });
    return { operator: { id, ...input }, ...(await newCredential(q, by, id)) };
  });
}

/** Revokes a credential and ends its sessions, at once. An admin cannot revoke the credential it is using. */
export async function withdrawCredential(
  db: Db,
  request: { by: Actor; credentialId: string; usingCredential?: string },
): Promise<void> {
  if (request.credentialId === request.usingCredential)
    throw new DomainError('own-key', 'a credential cannot revoke itself: use another operator-admin');
  const owner = await credentialOwner(db, request.credentialId);
  if (!owner) throw new DomainError('not-found', `credential ${request.credentialId} not found`);
  await db.tx(async (q) => {
    if (await revokeCredential(q, request.credentialId))
      await recordAccess(q, {
        operatorId: request.by,
        action: 'credential-revoked',
        detail: { operator_id: owner, credential_id: request.credentialId },
      });
  });
}
