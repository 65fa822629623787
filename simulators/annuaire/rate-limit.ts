// A token bucket over the Annuaire API's requests, for benchmarks: PISTE answers 429 over a client's quota. Its
// capacity is one second's worth (at least one request); over it, the seconds until a token is back.

export class RateLimiter {
  private tokens = 0;
  private at = 0;
  private perSecond: number | undefined;

  constructor(perSecond?: number) {
    this.set(perSecond);
  }

  /** undefined (or 0): no limit. */
  set(perSecond: number | undefined): void {
    this.perSecond = perSecond || undefined;
    this.tokens = this.capacity();
    this.at = Date.now();
  }

  get(): number | undefined {
    return this.perSecond;
  }

  /** 0 when a request may go now (it takes a token), else the whole seconds to wait (Retry-After, at least 1). */
  take(now = Date.now()): number {
    if (!this.perSecond) return 0;
    this.tokens = Math.min(this.capacity(), this.tokens + ((now - this.at) / 1000) * this.perSecond);
    this.at = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - this.tokens) / this.perSecond));
  }

  private capacity(): number {
    return this.perSecond ? Math.max(1, this.perSecond) : 0;
  }
}
