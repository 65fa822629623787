// Local simulator of the public API Recherche d'entreprises (annuaire-entreprises-data-gouv-fr/search-api), by its
// OpenAPI contract (spec/recherche-entreprises/open-api.yml): GET /search, whose answers are the contract's `payload`,
// over a register of companies and their directors told by its control (admin-routes.ts). As the real API: no
// non-diffusible company is ever shown, at most 7 requests per second per client address (429 with Retry-After),
// unknown parameters ignored, errors as {"erreur": …}. Plus fault injection (../faults.ts) on the API and optional
// persistence. GET /near_point, the contract's other path, is not simulated (501).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { applyFault, faultInjector, loseResponse, type FaultSetting } from '../faults';
import { ADMIN_PATH, answerAdmin, type Sim } from './admin-routes';
import { seedInput, stored, type SeedCompany } from './companies';
import { allow, ApiError, readText, send, sendError } from './http';
import { readQuery } from './query';
import { AddressRateLimiter, DEFAULT_RATE_LIMIT } from './rate-limit';
import { search } from './search';
import { CompanyStore } from './store';

export type { SeedCompany, StoredCompany } from './companies';

export interface RechercheSimulatorOptions {
  host: string;
  port: number;
  /** Where the register is kept across restarts (and `<stateFile>.journal` beside it); in memory when absent. */
  stateFile?: string;
  faults?: FaultSetting;
  /** Requests per second per client address (default 7, the contract's); null: no limit. */
  rateLimitPerSecond?: number | null;
}

export interface RechercheSimulator {
  /** Base URL: the API is `${url}/search`. */
  url: string;
  /** Tells the register a company (checked as PUT /_simulator/companies/{siren}: a bad one throws, naming the field). */
  seedCompany(company: SeedCompany): void;
  setFaults(faults: FaultSetting | undefined): void;
  /** Injected faults so far, by status and "timeout" (held requests). */
  faultsSeen(): Record<string, number>;
  /** Requests per second per client address; null: no limit. */
  setRateLimit(perSecond: number | null): void;
  /** API requests answered so far, by status (the control aside; held or lost answers are not counted). */
  requests(): Record<string, number>;
  close(): Promise<void>;
}

export async function startRechercheSimulator(o: RechercheSimulatorOptions): Promise<RechercheSimulator> {
  const store = new CompanyStore(o.stateFile);
  const limiter = new AddressRateLimiter(
    o.rateLimitPerSecond === undefined ? DEFAULT_RATE_LIMIT : o.rateLimitPerSecond,
  );
  const faults = faultInjector(o.faults, (status) => `panne simulée (${status})`);
  const answered: Record<string, number> = {};
  const sim: Sim = {
    store,
    limiter,
    seed(companies) {
      const now = new Date();
      const kept = companies.map((c) => stored(c, store.get(c.siren), now));
      store.put(kept);
      return kept;
    },
    requests: () => ({ ...answered }),
  };

  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    let url: URL;
    let p: string;
    try {
      url = new URL(req.url ?? '/', 'http://sim');
      p = decodeURIComponent(url.pathname).replace(/\/+$/, '') || '/';
    } catch {
      throw new ApiError(400, `chemin mal formé : ${req.url}`);
    }
    const method = req.method ?? 'GET';
    if (method === 'GET' && p === '/health')
      return send(res, 200, { simulator: 'recherche-entreprises', status: 'ok' });
    if (p === ADMIN_PATH || p.startsWith(`${ADMIN_PATH}/`))
      return answerAdmin(sim, req, res, p.slice(ADMIN_PATH.length));

    res.on('finish', () => (answered[res.statusCode] = (answered[res.statusCode] ?? 0) + 1));
    const body = await readText(req); // bounded; read before deciding: a fault may look for a text in it
    const wait = limiter.take(req.socket.remoteAddress ?? 'unknown');
    if (wait)
      throw new ApiError(429, `limite de ${limiter.get()} requêtes par seconde par adresse IP dépassée`, {
        'retry-after': String(wait),
      });
    const fault = faults.decide({ target: `${method} ${p}`, body });
    if (await applyFault(fault, req, res, (status, erreur) => sendError(res, new ApiError(status, erreur)))) return;

    if (p === '/search') {
      allow(method, p, 'GET', 'HEAD');
      const payload = search(store, readQuery(url.searchParams));
      if (!loseResponse(fault, res)) send(res, 200, payload);
      return;
    }
    if (p === '/near_point') throw new ApiError(501, "GET /near_point (recherche géographique) n'est pas simulé");
    throw new ApiError(404, `${p} : ressource inconnue (GET /search?q=…)`);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent || res.destroyed) return;
      sendError(
        res,
        err instanceof ApiError ? err : new ApiError(500, `erreur interne du simulateur : ${String(err)}`),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}`,
    seedCompany: (c) => void sim.seed([seedInput(c)]),
    setFaults: (f) => faults.set(f),
    faultsSeen: () => faults.seen(),
    setRateLimit: (n) => limiter.set(n),
    requests: sim.requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }).then(() => store.close()),
  };
}
