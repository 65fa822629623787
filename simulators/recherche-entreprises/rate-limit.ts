// The real API's limit: "au maximum 7 requêtes par seconde par adresse IP", over it 429 with Retry-After. A token
// bucket per client address (req.socket.remoteAddress), holding one second's worth (at least one request) and refilled
// continuously; over it, the whole seconds until a token is back. A bucket idle for a second is full again, so it is
// forgotten (swept at most once a second): many clients cost no memory once gone.

/** The contract's figure. */
export const DEFAULT_RATE_LIMIT = 7;

export class AddressRateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private perSecond: number | null = null;
  private sweptAt = 0;

  /** null: no limit. */
  constructor(perSecond: number | null) {
    this.set(perSecond);
  }

  set(perSecond: number | null): void {
    if (perSecond !== null && !(perSecond > 0 && Number.isFinite(perSecond)))
      throw new Error(`rateLimitPerSecond: a number of requests per second > 0, or null (no limit), not ${perSecond}`);
    this.perSecond = perSecond;
    this.buckets.clear();
  }

  get(): number | null {
    return this.perSecond;
  }

  /** 0 when `address` may go now (it takes a token), else the whole seconds to wait (Retry-After, at least 1). */
  take(address: string, now = Date.now()): number {
    const rate = this.perSecond;
    if (rate === null) return 0;
    const capacity = Math.max(1, rate);
    this.sweep(now, capacity / rate);
    const b = this.buckets.get(address) ?? { tokens: capacity, at: now };
    b.tokens = Math.min(capacity, b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    this.buckets.set(address, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / rate));
  }

  private sweep(now: number, fullAfterSeconds: number): void {
    if (now - this.sweptAt < 1000) return;
    this.sweptAt = now;
    for (const [address, b] of this.buckets) if (now - b.at >= fullAfterSeconds * 1000) this.buckets.delete(address);
  }
}
