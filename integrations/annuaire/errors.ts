// Errors of the PPF Annuaire, classified once so callers only ask `retryable` (and, when told, `retryAfterMs`).
import { TransportError, type Answer } from '../outbound-http';

/** Statuses worth trying again later: timeouts, throttling, server faults. 401 is not: the client already got a fresh token. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** Longest wait we accept from a Retry-After: beyond it, our own backoff decides. */
const MAX_RETRY_AFTER_MS = 10 * 60_000;

export class AnnuaireError extends Error {
  override readonly name = 'AnnuaireError';
  constructor(
    /** HTTP status; null when no answer came back (network error, timeout). */
    readonly status: number | null,
    /** The PPF problem's `detail` (or the best description we have). */
    readonly detail: string,
    readonly retryable: boolean = status === null || isRetryableStatus(status),
    readonly titre?: string,
    /** The server's Retry-After, when it sent one with a retryable answer. */
    readonly retryAfterMs?: number,
  ) {
    super(status === null ? `Annuaire unreachable: ${detail}` : `Annuaire ${status}: ${detail}`);
  }
}

/** Retry-After is delta-seconds or an HTTP date (RFC 9110 §10.2.3); anything else is ignored. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  const ms = /^\d+$/.test(v) ? Number(v) * 1000 : Date.parse(v) - now;
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS) : undefined;
}

/** Builds an AnnuaireError from a non-2xx answer; the body is problem+json with French members (titre, statut, detail). */
export async function errorFromResponse(res: Answer, what: string): Promise<AnnuaireError> {
  const text = await res.text().catch(() => '');
  let titre: string | undefined;
  let detail: string | undefined;
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    if (typeof body.titre === 'string') titre = body.titre;
    if (typeof body.detail === 'string') detail = body.detail;
    // Gateways may answer RFC 9457 members in English.
    if (!titre && typeof body.title === 'string') titre = body.title;
    // OAuth2 token endpoints answer RFC 6749 errors instead.
    if (!detail && typeof body.error === 'string') detail = [body.error, body.error_description].filter(Boolean).join(': ');
  } catch {
    /* not JSON: fall back to the status line */
  }
  const retryable = isRetryableStatus(res.status);
  const retryAfterMs = retryable ? parseRetryAfter(res.header('retry-after')) : undefined;
  return new AnnuaireError(res.status, detail ?? titre ?? `${what} answered ${res.status} ${res.statusText}`, retryable, titre, retryAfterMs);
}

/** Transport failures (refused connection, DNS, timeout) become retryable errors without a status. */
export function networkError(err: unknown, what: string): AnnuaireError {
  const reason = err instanceof TransportError ? err.reason : ((err as Error)?.message ?? String(err));
  return new AnnuaireError(null, `${what}: ${reason}`);
}
