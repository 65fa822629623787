// A workspace's API keys as its admins manage them. The rule: a key never revokes itself, so a workspace cannot
// lock its last admin out by mistake; another admin key (or the operators' command line) does it.
import { revokeWorkspaceKey } from '../platform/store/workspaces';
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
