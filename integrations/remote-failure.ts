// HTTP's part of a remote failure (domain/remote-failure.ts): which answers are worth retrying, and when.
/** Statuses worth trying again later: timeouts, throttling, server faults. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** Longest wait we accept from a Retry-After: beyond it, our own backoff decides. */
const MAX_RETRY_AFTER_MS = 10 * 60_000;

/** Retry-After is delta-seconds or an HTTP date (RFC 9110 §10.2.3); anything else is ignored. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  const ms = /^\d+$/.test(v) ? Number(v) * 1000 : Date.parse(v) - now;
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS) : undefined;
}
