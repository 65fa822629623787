// The API Recherche d'entreprises (annuaire-entreprises-data-gouv-fr/search-api; contract in
// spec/recherche-entreprises/): a company's directors, for the submission checks (domain/review/director-check.ts).
// It is open and unauthenticated, and allows about 7 requests a second per address, answering 429 with Retry-After
// beyond: each process paces its own requests under the configured rate, and a request that would wait longer than
// its timeout fails (retryable) rather than hold a signer's confirmation.
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { RemoteFailure } from '../../domain/remote-failure';
import type { Director, DirectorLookup } from '../../domain/review/director-check';
import { send, TransportError, type Answer } from '../outbound-http';
import { isRetryableStatus, parseRetryAfter } from '../remote-failure';

export interface RechercheClientOptions {
  baseUrl: string;
  /** For each lookup, the wait for its turn under the rate included. */
  timeoutMs: number;
  /** Requests a second this process sends at most. */
  perSecond: number;
  userAgent: string;
}

const wireDirector = z.union([
  z.object({
    type_dirigeant: z.literal('personne physique'),
    nom: z.string().nullish(),
    prenoms: z.string().nullish(),
    qualite: z.string().nullish(),
  }),
  z.object({
    type_dirigeant: z.literal('personne morale'),
    siren: z.string().nullish(),
    denomination: z.string().nullish(),
    qualite: z.string().nullish(),
  }),
  // Kinds the contract may add later are left out, not refused.
  z.object({ type_dirigeant: z.string().nullish() }).transform(() => null),
]);

const wirePayload = z.object({
  results: z.array(z.object({ siren: z.string(), dirigeants: z.array(wireDirector).nullish() })),
});

function director(d: z.infer<typeof wireDirector>): Director | null {
  if (!d || !('type_dirigeant' in d)) return null;
  const role = 'qualite' in d && d.qualite ? { role: d.qualite } : {};
  if (d.type_dirigeant === 'personne physique' && 'nom' in d)
    return { kind: 'person', surname: d.nom ?? '', givenNames: d.prenoms ?? '', ...role };
  if (d.type_dirigeant === 'personne morale' && 'denomination' in d && d.siren && /^\d{9}$/.test(d.siren))
    return { kind: 'legal-person', siren: d.siren, name: d.denomination ?? '', ...role };
  return null;
}

class RechercheError extends RemoteFailure {
  override readonly name = 'RechercheError';
}

/** Spaces requests `1 / perSecond` apart, in the order they ask; the wait a request would have, when over `maxMs`, fails it. */
function pacer(perSecond: number) {
  const gap = 1000 / perSecond;
  let next = 0;
  return async (maxMs: number): Promise<void> => {
    const now = Date.now();
    const at = Math.max(now, next);
    if (at - now > maxMs)
      throw new RechercheError('public-register', `over our request rate for ${maxMs} ms: try later`, true);
    next = at + gap;
    if (at > now) await sleep(at - now);
  };
}

export function createRechercheClient(o: RechercheClientOptions): DirectorLookup {
  const base = o.baseUrl.replace(/\/+$/, '');
  const turn = pacer(o.perSecond);

  async function failure(res: Answer): Promise<RechercheError> {
    const text = await res.text().catch(() => '');
    let said: string | undefined;
    try {
      const e = (JSON.parse(text) as { erreur?: unknown }).erreur;
      if (typeof e === 'string') said = e;
    } catch {
      /* not JSON: the status line says it */
    }
    const retryable = isRetryableStatus(res.status);
    return new RechercheError(
      'public-register',
      `API Recherche d'entreprises ${res.status}: ${said ?? res.statusText}`,
      retryable,
      res.status,
      retryable ? parseRetryAfter(res.header('retry-after')) : undefined,
      { erreur: said },
    );
  }

  return {
    async directorsOf(siren) {
      if (!/^\d{9}$/.test(siren)) return null;
      const started = Date.now();
      await turn(o.timeoutMs);
      const url = `${base}/search?q=${siren}&minimal=true&include=dirigeants&page=1&per_page=1`;
      let res: Answer;
      try {
        // One request: a 429 is not tried again within the lookup, which then counts as unavailable.
        res = await send(url, {
          method: 'GET',
          headers: { accept: 'application/json', 'user-agent': o.userAgent },
          timeoutMs: Math.max(1, o.timeoutMs - (Date.now() - started)),
          tries: 1,
        });
      } catch (err) {
        if (!(err instanceof TransportError)) throw err;
        throw new RechercheError('public-register', `API Recherche d'entreprises unreachable: ${err.reason}`, true);
      }
      if (!res.ok) throw await failure(res);
      let body: unknown;
      try {
        body = await res.json();
      } catch (err) {
        const why = err instanceof SyntaxError ? 'the answer is not JSON' : 'the answer did not arrive whole';
        throw new RechercheError(
          'public-register',
          `API Recherche d'entreprises: ${why}`,
          !(err instanceof SyntaxError),
        );
      }
      const parsed = wirePayload.safeParse(body);
      if (!parsed.success)
        throw new RechercheError(
          'public-register',
          `API Recherche d'entreprises: unexpected answer: ${parsed.error.message}`,
          false,
        );
      const company = parsed.data.results.find((r) => r.siren === siren);
      if (!company) return null;
      return (company.dirigeants ?? []).map(director).filter((d): d is Director => d !== null);
    },
  };
}
