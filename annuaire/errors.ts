// Errors of the PPF Annuaire, classified once so callers only ask `retryable`.

/** Statuses worth trying again later: timeouts, throttling, server faults. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

export class AnnuaireError extends Error {
  override readonly name = 'AnnuaireError';
  constructor(
    /** HTTP status; null when no answer came back (network error, timeout). */
    readonly status: number | null,
    readonly detail: string,
    readonly retryable: boolean = status === null || isRetryableStatus(status),
    readonly titre?: string,
  ) {
    super(status === null ? `Annuaire unreachable: ${detail}` : `Annuaire ${status}: ${detail}`);
  }
}

/** Builds an AnnuaireError from a non-2xx answer; the body is problem+json with French members (titre, statut, detail). */
export async function errorFromResponse(res: Response, what: string): Promise<AnnuaireError> {
  const text = await res.text().catch(() => '');
  let titre: string | undefined;
  let detail: string | undefined;
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    if (typeof body.titre === 'string') titre = body.titre;
    if (typeof body.detail === 'string') detail = body.detail;
    // OAuth2 token endpoints answer RFC 6749 errors instead.
    if (!detail && typeof body.error === 'string') detail = [body.error, body.error_description].filter(Boolean).join(': ');
  } catch {
    /* not JSON: fall back to the status line */
  }
  return new AnnuaireError(res.status, detail ?? titre ?? `${what} answered ${res.status} ${res.statusText}`, undefined, titre);
}

/** fetch failures (refused connection, DNS, AbortSignal.timeout) become retryable errors without a status. */
export function networkError(err: unknown, what: string): AnnuaireError {
  const e = err as { name?: string; message?: string; cause?: { code?: string } };
  const reason = e?.name === 'TimeoutError' ? 'timed out' : (e?.cause?.code ?? e?.message ?? String(err));
  return new AnnuaireError(null, `${what}: ${reason}`);
}
