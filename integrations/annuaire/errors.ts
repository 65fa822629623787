// Errors of the PPF Annuaire, classified once so callers only ask `retryable` (and, when told, `retryAfterMs`).
import { TransportError, type Answer } from '../outbound-http';
import { isRetryableStatus, parseRetryAfter } from '../remote-failure';
import { RemoteFailure } from '../../domain/remote-failure';

// Kept for the clients and tests that read them from here.
export { isRetryableStatus, parseRetryAfter };

export class AnnuaireError extends RemoteFailure {
  override readonly name = 'AnnuaireError';
  constructor(
    /** HTTP status; null when no answer came back (network error, timeout). */
    status: number | null,
    /** The PPF problem's `detail` (or the best description we have). */
    readonly detail: string,
    retryable: boolean = status === null || isRetryableStatus(status),
    readonly titre?: string,
    /** The server's Retry-After, when it sent one with a retryable answer. */
    retryAfterMs?: number,
  ) {
    super(
      'annuaire',
      status === null ? `Annuaire unreachable: ${detail}` : `Annuaire ${status}: ${detail}`,
      retryable,
      status ?? undefined,
      retryAfterMs,
      { titre, detail },
    );
  }
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
    if (!detail && typeof body.error === 'string')
      detail = [body.error, body.error_description].filter(Boolean).join(': ');
  } catch {
    /* not JSON: fall back to the status line */
  }
  const retryable = isRetryableStatus(res.status);
  const retryAfterMs = retryable ? parseRetryAfter(res.header('retry-after')) : undefined;
  return new AnnuaireError(
    res.status,
    detail ?? titre ?? `${what} answered ${res.status} ${res.statusText}`,
    retryable,
    titre,
    retryAfterMs,
  );
}

/** Transport failures (refused connection, DNS, timeout) become retryable errors without a status. */
export function networkError(err: unknown, what: string): AnnuaireError {
  const reason = err instanceof TransportError ? err.reason : ((err as Error)?.message ?? String(err));
  return new AnnuaireError(null, `${what}: ${reason}`);
}
