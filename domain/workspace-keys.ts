// A workspace's API keys as its admins manage them. The rule: a key never revokes itself, so a workspace cannot
// lock its last admin out by mistake; another admin key (or the operators' command line) does it.
import { createApiKey, listApiKeys, revokeWorkspaceKey, type Scope } from '../platform/store/workspaces';
import type { Queryable } from '../platform/store/db';
import { DomainError } from './errors';

export async function revokeKey(
  db: Queryable,
  request: { workspaceId: string; keyId: string; revokedBy: string },
): Promise<void> {
  if (request.keyId === request.revokedBy) {
    throw new DomainError('own-key', 'a key cannot revoke itself: use another admin key');
  }
  const outcome = await revokeWorkspaceKey(db, request.workspaceId, request.keyId);
  if (outcome === 'unknown') throw new DomainError('not-found', `API key ${request.keyId} not found`);
}

/** A new key and its secret, shown this once. */
export async function issueKey(db: Queryable, workspaceId: string, input: { name: string; scopes: Scope[] }) {
  const key = await createApiKey(db, workspaceId, input);
  const view = (await listApiKeys(db, workspaceId)).find((k) => k.id === key.id)!;
  return { ...view, api_key: key.secret };
}
