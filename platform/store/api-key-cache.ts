// The API keys a process has recently looked up, so that an integration sending thousands of requests does not
// read its key again for each. A revocation reaches every process at once through a notification (revokeApiKey):
// the cache serves only while this process receives them (a lost subscription empties and disables it until it is
// back; a subscription starts serving once its own probe came back, so a pooler that drops notifications leaves
// it off), and a lookup that crossed a revocation is not kept.
import crypto from 'node:crypto';
import type { Db } from './db';

export const KEY_REVOKED_CHANNEL = 'pa_api_key_revoked';
const TTL_MS = 60_000;
const MAX_KEYS = 10_000;
const PROBE = 'probe:';

export interface CachedKey {
  keyId: string;
}

export class ApiKeyCache<K extends CachedKey> {
  private readonly keys = new Map<string, { identity: K; until: number }>();
  /** Notifications are known to arrive: its probe came back and the subscription has held since. */
  private subscribed = false;
  /** Moves at every revocation and change of subscription: a lookup begun before one is not kept. */
  private generation = 0;
  /** The payload of its own probe notification, while it waits for it to come back. */
  private probe?: string;

  constructor(db: Db) {
    db.listen(KEY_REVOKED_CHANNEL, {
      message: (payload) => {
        if (payload === this.probe) this.serve();
        else if (!payload.startsWith(PROBE)) this.revoked(payload); // others' probes are not key ids
      },
      ready: () => {
        this.probe = `${PROBE}${crypto.randomUUID()}`;
        db.query('SELECT pg_notify($1, $2)', [KEY_REVOKED_CHANNEL, this.probe]).catch(() => this.disable());
      },
      lost: () => this.disable(),
    }).catch(() => this.disable());
  }

  /** Whether it answers: only while revocations are known to reach it. */
  get serving(): boolean {
    return this.subscribed;
  }

  /** The identity of a key hash seen lately, if still fresh. */
  get(hash: string): K | undefined {
    if (!this.subscribed) return undefined;
    const hit = this.keys.get(hash);
    if (hit && hit.until > Date.now()) return hit.identity;
    this.keys.delete(hash);
    return undefined;
  }

  /** Where the next lookup starts: pass it to `keep`. */
  begin(): number {
    return this.generation;
  }

  keep(hash: string, identity: K, begun: number): void {
    if (!this.subscribed || begun !== this.generation) return;
    if (this.keys.size >= MAX_KEYS) this.keys.delete(this.keys.keys().next().value!); // the oldest
    this.keys.set(hash, { identity, until: Date.now() + TTL_MS });
  }

  revoked(keyId: string): void {
    this.generation++;
    for (const [hash, { identity }] of this.keys) if (identity.keyId === keyId) this.keys.delete(hash);
  }

  private serve(): void {
    this.probe = undefined;
    this.generation++;
    this.subscribed = true;
  }

  private disable(): void {
    this.probe = undefined;
    this.subscribed = false;
    this.generation++;
    this.keys.clear();
  }
}
