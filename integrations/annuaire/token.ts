// OAuth2 client-credentials token (PISTE gateway in production), cached and shared by concurrent calls.
import { send, type Answer } from '../outbound-http';
import { AnnuaireError, errorFromResponse, networkError } from './errors';

export interface TokenSource {
  /** A valid bearer token, fetched or refreshed when needed. */
  get(): Promise<string>;
  /** Forgets the cached token (after a 401), so the next get() asks for a new one. */
  invalidate(token: string): void;
}

// Refresh this long before the announced expiry, so a token never dies in flight.
const EARLY_MS = 60_000;

export function tokenSource(o: {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  timeoutMs: number;
  scope?: string;
}): TokenSource {
  let cached: { token: string; expiresAt: number } | undefined;
  let inFlight: Promise<string> | undefined;

  async function fetchToken(): Promise<string> {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: o.clientId,
      client_secret: o.clientSecret,
    });
    if (o.scope) form.set('scope', o.scope);
    let res: Answer;
    try {
      res = await send(o.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        idempotent: true, // a second token costs nothing
        timeoutMs: o.timeoutMs,
      });
    } catch (err) {
      throw networkError(err, 'token request');
    }
    if (!res.ok) throw await errorFromResponse(res, 'token endpoint');
    const body = (await res.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown };
    if (typeof body.access_token !== 'string')
      throw new AnnuaireError(res.status, 'token endpoint answered without access_token', false);
    const ttlMs = (typeof body.expires_in === 'number' ? body.expires_in : 3600) * 1000;
    // Short-lived tokens: refresh at half-life rather than never using them.
    cached = { token: body.access_token, expiresAt: Date.now() + ttlMs - Math.min(EARLY_MS, ttlMs / 2) };
    return body.access_token;
  }

  return {
    async get() {
      if (cached && Date.now() < cached.expiresAt) return cached.token;
      inFlight ??= fetchToken().finally(() => (inFlight = undefined));
      return inFlight;
    },
    invalidate(token) {
      if (cached?.token === token) cached = undefined;
    },
  };
}
