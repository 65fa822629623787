// Local simulator of the PPF Annuaire: the ligne-annuaire and code-routage endpoints of the official OpenAPI file
// (requests checked against its schemas), GET /siren/code-insee:{siren}, an OAuth2 client-credentials token endpoint
// standing in for PISTE, optional persistence, fault injection, a rate limit, and its control under /_simulator
// (admin-routes.ts: its day, next-day visibility, the other platforms and the PPF). Served under the spec's base path
// and, for convenience, at the root as well.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { applyFault, faultInjector, loseResponse, type FaultSetting } from '../faults';
import { loadSpecValidators, type BodySchema } from './spec';
import type { SeedRoutingCode, StoredRoutingCode } from './routing-codes';
import { LineStore, Refusal, type SeedLine, type SimSettings, type StoredLine } from './store';
import { HttpError, problem, readText, send } from './http';
import { Tokens } from './oauth';
import { answerLines } from './line-routes';
import { answerRoutingCodes } from './routing-code-routes';
import { ADMIN_PATH, answerAdmin } from './admin-routes';
import { RateLimiter } from './rate-limit';
import { isDay } from './days';
import type { SimCompany } from './companies';
import type { Call, Sim } from './call';

export type { SimCompany } from './companies';

/** The path of the OpenAPI's server URL, https://aife.economie.gouv.fr/ppf/annuaire-public/v1. */
export const BASE_PATH = '/ppf/annuaire-public/v1';
/** Stands in for PISTE's OAuth2 token endpoint; served beside the API, outside the base path. */
const TOKEN_PATH = '/oauth/token';
/** The simulator's control of its register (not the Annuaire's API); its other controls are beside it. */
export const COMPANIES_CONTROL = `${ADMIN_PATH}/companies/`;

export interface AnnuaireSimulatorOptions {
  host: string;
  port: number;
  stateFile?: string;
  faults?: FaultSetting;
  /** Accepted client credentials (client_id → secret); defaults to the development ones of the service's configuration. */
  clients?: Record<string, string>;
  tokenTtlSeconds?: number;
  specFile?: string;
  /**
   * The day the simulator counts in (YYYY-MM-DD), for every rule and every "today"; kept in the state file. Absent:
   * the day the state file has, else the real date (UTC). null: back to the real date.
   */
  day?: string | null;
  /** Changes written through the API (or as another platform) are read from the next day only. Kept as `day`. */
  changesVisibleNextDay?: boolean;
  /** Annuaire API requests (the token endpoint and the control aside) per second; over it, 429 with Retry-After. */
  rateLimitPerSecond?: number;
}

export interface AnnuaireSimulator {
  /** API base URL, base path of the spec included. */
  url: string;
  tokenUrl: string;
  close(): Promise<void>;
  /** Test seeding: no business rules (a routing-level line needs no routing code here), the overlap rule aside. */
  seedLine(line: SeedLine): StoredLine;
  /** A routing code, open and private unless told, in force from today unless told; a duplicate throws. */
  seedRoutingCode(code: SeedRoutingCode): StoredRoutingCode;
  /** A company (unité légale) for GET /siren/code-insee:{siren}; a SIREN never seeded is answered 404. */
  seedCompany(company: SimCompany): void;
  /** The day the simulator counts in. */
  today(): string;
  /** Fixes the simulator's day (YYYY-MM-DD), or with null goes back to the real date. */
  setDay(day: string | null): void;
  setSettings(settings: { changesVisibleNextDay?: boolean; rateLimitPerSecond?: number | null }): void;
  /** Every stored line, ended ones included. */
  lines(): StoredLine[];
  /** Every stored routing code. */
  routingCodes(): StoredRoutingCode[];
  setFaults(faults: FaultSetting | undefined): void;
  /** Injected faults so far, by status and "timeout" (held requests). */
  faultsSeen(): Record<string, number>;
  /** Invalidates every token issued so far (as a gateway restart would). */
  revokeTokens(): void;
}

export async function startAnnuaireSimulator(o: AnnuaireSimulatorOptions): Promise<AnnuaireSimulator> {
  const validators = loadSpecValidators(o.specFile); // fails here, with the path, when the spec file is absent
  if (o.day !== undefined && o.day !== null && !isDay(o.day))
    throw new Error(`Annuaire simulator: day must be a date YYYY-MM-DD, not ${o.day}`);
  if (o.rateLimitPerSecond !== undefined && !(o.rateLimitPerSecond >= 0))
    throw new Error(`Annuaire simulator: rateLimitPerSecond must be a number ≥ 0, not ${o.rateLimitPerSecond}`);
  const store = new LineStore(o.stateFile);
  const tokens = new Tokens(o.clients ?? { 'pa-dev': 'pa-dev-secret' }, o.tokenTtlSeconds ?? 3600);
  const faults = faultInjector(o.faults, (status) => `panne simulée (${status})`);
  const sim: Sim = {
    store,
    companies: store.companies,
    limiter: new RateLimiter(o.rateLimitPerSecond),
    commit(fn) {
      try {
        return fn();
      } finally {
        store.flush(); // a refused change may have written a default 9998 line before its refusal
      }
    },
    check(schema: BodySchema, body: unknown) {
      const errors = validators.check(schema, body);
      if (errors.length)
        throw new HttpError(400, `corps de requête non conforme au schéma ${schema} : ${errors.join(' ; ')}`);
    },
  };
  // Options given win over what the state file kept.
  const given: Partial<SimSettings> = {
    ...(o.day !== undefined && { day: o.day }),
    ...(o.changesVisibleNextDay !== undefined && { changesVisibleNextDay: o.changesVisibleNextDay }),
  };
  if (Object.keys(given).length) sim.commit(() => store.setSettings(given));

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const r =
        err instanceof Refusal ? err : new Refusal(500, `erreur interne du simulateur : ${(err as Error).message}`);
      problem(res, r.status, r.detail);
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://sim');
    let p: string;
    try {
      p = decodeURIComponent(url.pathname).replace(/\/+$/, '') || '/';
    } catch {
      throw new Refusal(400, `chemin mal encodé : ${url.pathname}`);
    }
    if (p.startsWith(BASE_PATH)) p = p.slice(BASE_PATH.length) || '/';
    const method = req.method ?? 'GET';

    if (method === 'GET' && p === '/health') return send(res, 200, { simulator: 'annuaire', status: 'ok' });
    if (p === ADMIN_PATH || p.startsWith(`${ADMIN_PATH}/`)) return answerAdmin(sim, req, res, p, method);

    // Read before deciding: a fault may target the requests whose body names, say, one SIREN.
    const raw = await readText(req);
    const wait = p === TOKEN_PATH ? 0 : sim.limiter.take();
    if (wait) {
      res.setHeader('retry-after', String(wait));
      return problem(res, 429, `limite de ${sim.limiter.get()} requêtes par seconde dépassée (simulée)`);
    }
    const fault = faults.decide({ target: `${method} ${p}`, body: raw, exempt: p === TOKEN_PATH });
    if (await applyFault(fault, req, res, (status, detail) => problem(res, status, detail))) return;
    if (p === TOKEN_PATH) return tokens.issue(req, res, raw);

    const caller = tokens.caller(req);
    if (!caller) {
      res.setHeader('www-authenticate', 'Bearer');
      return problem(res, 401, "jeton d'accès absent, inconnu ou expiré");
    }
    const call: Call = {
      req,
      method,
      path: p,
      url,
      raw,
      day: store.day(),
      by: caller.clientId,
      // Refusals are always answered (thrown); a business answer may be lost by the fault.
      answer: (status, body) => void (loseResponse(fault, res) || send(res, status, body)),
    };
    if (method === 'GET' && p === '/healthcheck') return call.answer(200, { statut: 'OK' });
    if (answerLines(sim, call) || answerRoutingCodes(sim, call)) return;
    if (/^\/(siren|siret|code-routage)(\/|$)/.test(p)) throw new HttpError(501, `${method} ${p} n'est pas simulé`);
    throw new HttpError(404, `${method} ${p} : ressource inconnue`);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const origin = `http://${o.host}:${(server.address() as AddressInfo).port}`;
  return {
    url: origin + BASE_PATH,
    tokenUrl: origin + TOKEN_PATH,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }).then(() => store.close()),
    seedLine: (line) => sim.commit(() => store.seed(line)),
    seedRoutingCode: (code) => structuredClone(sim.commit(() => store.routingCodes.seed(code, store.day()))),
    seedCompany: (c) => void sim.commit(() => store.putCompany(c)),
    today: () => store.day(),
    setDay: (day) => {
      if (day !== null && !isDay(day)) throw new Error(`setDay: a date YYYY-MM-DD or null, not ${day}`);
      sim.commit(() => store.setSettings({ day }));
    },
    setSettings: ({ changesVisibleNextDay, rateLimitPerSecond }) => {
      if (changesVisibleNextDay !== undefined) sim.commit(() => store.setSettings({ changesVisibleNextDay }));
      if (rateLimitPerSecond !== undefined) sim.limiter.set(rateLimitPerSecond ?? undefined);
    },
    lines: () => store.all(),
    routingCodes: () => structuredClone([...store.routingCodes.all()]),
    setFaults: (f) => faults.set(f),
    faultsSeen: () => faults.seen(),
    revokeTokens: () => tokens.revokeAll(),
  };
}
