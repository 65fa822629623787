// A failure of a system outside us, classified once by its client: which system, whether trying again may help
// (no answer, 408, 429, 5xx) and how soon the server asked us to. Activities map it to Temporal in one place
// (activities/remote-failure.ts); the API to 503 or 502.
export type RemoteSystem = 'annuaire' | 'sml' | 'directory';

export class RemoteFailure extends Error {
  constructor(
    readonly system: RemoteSystem,
    message: string,
    readonly retryable: boolean,
    /** HTTP status of the answer; undefined when none came back (network error, timeout). */
    readonly status?: number,
    /** The server's Retry-After, on an answer worth retrying. */
    readonly retryAfterMs?: number,
    /** What the server said, in its own members (the PPF's `titre` and `detail`), kept in the job's fault. */
    readonly said?: Record<string, string | undefined>,
  ) {
    super(message);
  }
}

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
