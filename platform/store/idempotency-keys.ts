// Idempotency keys (api/idempotency.ts): who holds a key, and the answer it got. A key belongs to the API key that
// sent it. A claim is one INSERT … ON CONFLICT on the primary key (API key, key), so two requests racing on one key,
// in one process or two, cannot both win.
import crypto from 'node:crypto';
import type { Queryable } from './db';

/** How long an answer is replayed; older rows are taken over as if absent, and swept. */
export const IDEMPOTENCY_WINDOW = '24 hours';
/**
 * A claim still unanswered after this is taken to be abandoned (its API process died mid-request), so that the key
 * does not stay refused for a day. Far above any request's duration (`?wait` is at most 60 s).
 */
export const ABANDONED_AFTER = '5 minutes';

/** Whose Idempotency-Key it is: an API key (of a workspace). */
export interface KeyHolder {
  workspaceId: string;
  apiKeyId: string;
}

export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  bodySealed: Buffer;
}

export type ClaimOutcome =
  | { outcome: 'claimed'; claim: string }
  | { outcome: 'reused' } // the key was first used for another request
  | { outcome: 'in-flight' }
  | { outcome: 'replay'; answer: StoredAnswer };

interface KeyRow {
  request_sha256: string;
  completed_at: Date | null;
  status: number | null;
  headers: Record<string, string> | null;
  body_sealed: Uint8Array | null;
}

/** Takes `key` for this request, or says why not: the request it was first used for, still running, or answered. */
export async function claimIdempotencyKey(
  q: Queryable,
  holder: KeyHolder,
  key: string,
  requestSha256: string,
): Promise<ClaimOutcome> {
  // A row can vanish between the two statements (its request failed with a 5xx): claim again then.
  for (let attempt = 0; attempt < 3; attempt++) {
    const claim = crypto.randomUUID();
    const taken = await q.query(
      `INSERT INTO idempotency_keys (workspace_id, api_key_id, key, request_sha256, claim) VALUES ($1, $7, $2, $3, $4)
       ON CONFLICT (api_key_id, key) DO UPDATE
         SET request_sha256 = EXCLUDED.request_sha256, claim = EXCLUDED.claim, created_at = now(),
             completed_at = NULL, status = NULL, headers = NULL, body_sealed = NULL
       WHERE idempotency_keys.created_at < now() - $5::interval
          OR (idempotency_keys.completed_at IS NULL AND idempotency_keys.created_at < now() - $6::interval)
       RETURNING claim`,
      [holder.workspaceId, key, requestSha256, claim, IDEMPOTENCY_WINDOW, ABANDONED_AFTER, holder.apiKeyId],
    );
    if (taken.rows.length === 1) return { outcome: 'claimed', claim };
    const { rows } = await q.query<KeyRow>(
      'SELECT request_sha256, completed_at, status, headers, body_sealed FROM idempotency_keys WHERE api_key_id = $1 AND key = $2',
      [holder.apiKeyId, key],
    );
    const row = rows[0];
    if (!row) continue;
    if (row.request_sha256 !== requestSha256) return { outcome: 'reused' };
    if (!row.completed_at) return { outcome: 'in-flight' };
    return {
      outcome: 'replay',
      answer: { status: row.status!, headers: row.headers ?? {}, bodySealed: Buffer.from(row.body_sealed!) },
    };
  }
  return { outcome: 'in-flight' }; // claimed and released over and over meanwhile: as good as in flight
}

/** Keeps the answer of the request holding `claim`; false when it no longer holds the key. */
export async function completeIdempotencyKey(
  q: Queryable,
  holder: KeyHolder,
  key: string,
  claim: string,
  answer: StoredAnswer,
): Promise<boolean> {
  const r = await q.query(
    `UPDATE idempotency_keys SET completed_at = now(), status = $4, headers = $5, body_sealed = $6
      WHERE api_key_id = $1 AND key = $2 AND claim = $3`,
    [holder.apiKeyId, key, claim, answer.status, JSON.stringify(answer.headers), answer.bodySealed],
  );
  return r.rowCount === 1;
}

/** Frees the key held by `claim` (its answer is not to be replayed): the next request with it runs anew. */
export async function releaseIdempotencyKey(
  q: Queryable,
  holder: KeyHolder,
  key: string,
  claim: string,
): Promise<void> {
  await q.query('DELETE FROM idempotency_keys WHERE api_key_id = $1 AND key = $2 AND claim = $3', [
    holder.apiKeyId,
    key,
    claim,
  ]);
}

/** Deletes the rows past the window; returns how many. */
export async function sweepIdempotencyKeys(q: Queryable): Promise<number> {
  const r = await q.query('DELETE FROM idempotency_keys WHERE created_at < now() - $1::interval', [IDEMPOTENCY_WINDOW]);
  return r.rowCount;
}
