// The simulator's control, outside the API: under /_simulator, never rate-limited nor faulted, never called by the
// service. It tells the register its companies (one, or in bulk), reads and removes them, sets the rate limit, and
// counts the API's answers by status (benchmarks and tests). ADMIN.md shows each route.
import type http from 'node:http';
import { z } from 'zod';
import { bodyInput, seedInput, type StoredCompany } from './companies';
import { allow, ApiError, jsonBody, readText, send } from './http';
import type { AddressRateLimiter } from './rate-limit';
import type { CompanyStore } from './store';

export const ADMIN_PATH = '/_simulator';
/** A bulk body may be large (100,000 companies with their directors are some 30 MB); any other stays under 1 MB. */
const BULK_LIMIT = 64 * 1024 * 1024;

export interface Sim {
  store: CompanyStore;
  limiter: AddressRateLimiter;
  /** Keeps these companies (checked already), stamped now. */
  seed(companies: readonly ReturnType<typeof seedInput>[]): StoredCompany[];
  requests(): Record<string, number>;
}

const settingsSchema = z.strictObject({ rateLimitPerSecond: z.number().positive().finite().nullable().optional() });

function sirenOf(s: string): string {
  if (!/^\d{9}$/.test(s)) throw new ApiError(400, `un SIREN a 9 chiffres : ${s}`);
  return s;
}

/** Answers a request under ADMIN_PATH (`route`: its path after ADMIN_PATH, decoded, without a trailing slash). */
export async function answerAdmin(
  sim: Sim,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  route: string,
): Promise<void> {
  const method = req.method ?? 'GET';
  const where = ADMIN_PATH + route;
  const raw = await readText(req, route === '/companies:bulk' ? BULK_LIMIT : undefined);
  let m: RegExpMatchArray | null;

  if (route === '/companies:bulk') {
    allow(method, where, 'POST');
    const all = jsonBody(raw);
    if (!Array.isArray(all)) throw new ApiError(400, 'un tableau JSON de sociétés (avec leur siren) est attendu');
    const companies = all.map((x, i) => seedInput(x, `[${i}] `)); // all checked before any is kept
    return send(res, 201, { companies: sim.seed(companies).length });
  }
  if ((m = route.match(/^\/companies\/([^/]+)$/))) {
    allow(method, where, 'GET', 'PUT', 'DELETE');
    const siren = sirenOf(m[1]!);
    if (method === 'PUT') return send(res, 200, sim.seed([bodyInput(jsonBody(raw), siren)])[0]);
    if (method === 'DELETE') {
      if (!sim.store.delete(siren)) throw new ApiError(404, `société ${siren} inconnue du simulateur`);
      return send(res, 204);
    }
    const c = sim.store.get(siren);
    if (!c) throw new ApiError(404, `société ${siren} inconnue du simulateur`);
    return send(res, 200, c);
  }
  if (route === '/settings') {
    allow(method, where, 'GET', 'PUT');
    if (method === 'PUT') {
      const r = settingsSchema.safeParse(jsonBody(raw), { error: z.locales.fr().localeError });
      if (!r.success)
        throw new ApiError(
          400,
          `${r.error.issues[0]!.path.join('.') || 'corps'} : ${r.error.issues[0]!.message} ` +
            '(rateLimitPerSecond : un nombre de requêtes par seconde > 0, ou null pour aucune limite)',
        );
      if (r.data.rateLimitPerSecond !== undefined) sim.limiter.set(r.data.rateLimitPerSecond);
    }
    return send(res, 200, { rateLimitPerSecond: sim.limiter.get() });
  }
  if (route === '/requests') {
    allow(method, where, 'GET');
    return send(res, 200, sim.requests());
  }
  throw new ApiError(404, `${method} ${where} : route de contrôle inconnue (voir ADMIN.md)`);
}
