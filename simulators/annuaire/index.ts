// Local simulator of the PPF Annuaire: the ligne-annuaire and code-routage endpoints of the official OpenAPI file
// (requests checked against its schemas), GET /siren/code-insee:{siren}, an OAuth2 client-credentials token endpoint
// standing in for PISTE, optional persistence and fault injection. Served under the spec's base path and, for
// convenience, at the root as well.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { applyFault, faultInjector, loseResponse, type FaultSetting } from '../faults';
import { KNOWN_COMPANIES, uniteLegale, type SimCompany } from './companies';
import { loadSpecValidators, type BodySchema } from './spec';
import type { SeedRoutingCode, StoredRoutingCode } from './routing-codes';
import { LineStore, Refusal, today, type SeedLine, type StoredLine } from './store';
import { HttpError, problem, readText, send } from './http';
import { Tokens } from './oauth';
import { answerLines } from './line-routes';
import { answerRoutingCodes } from './routing-code-routes';
import type { Call, Sim } from './call';

export type { SimCompany } from './companies';

/** The path of the OpenAPI's server URL, https://aife.economie.gouv.fr/ppf/annuaire-public/v1. */
export const BASE_PATH = '/ppf/annuaire-public/v1';
/** Stands in for PISTE's OAuth2 token endpoint; served beside the API, outside the base path. */
const TOKEN_PATH = '/oauth/token';
/** The simulator's control of its register (not the Annuaire's API). */
export const COMPANIES_CONTROL = '/_simulator/companies/';

export interface AnnuaireSimulatorOptions {
  host: string;
  port: number;
  stateFile?: string;
  faults?: FaultSetting;
  /** Accepted client credentials (client_id → secret); defaults to the development ones of the service's configuration. */
  clients?: Record<string, string>;
  tokenTtlSeconds?: number;
  specFile?: string;
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
  /** A company (unité légale) for GET /siren/code-insee:{siren}; a SIREN never seeded is answered 404. In memory. */
  seedCompany(company: SimCompany): void;
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
  const store = new LineStore(o.stateFile);
  const tokens = new Tokens(o.clients ?? { 'pa-dev': 'pa-dev-secret' }, o.tokenTtlSeconds ?? 3600);
  const faults = faultInjector(o.faults, (status) => `panne simulée (${status})`);
  const companies = new Map<string, SimCompany & { idInstance: number }>();
  for (const c of KNOWN_COMPANIES) companies.set(c.siren, { ...c, idInstance: 1_000_000 + companies.size });
  const sim: Sim = {
    store,
    companies,
    // A no-op change costs one small write: fine for a simulator.
    commit(fn) {
      const r = fn();
      store.save();
      return r;
    },
    check(schema: BodySchema, body: unknown) {
      const errors = validators.check(schema, body);
      if (errors.length)
        throw new HttpError(400, `corps de requête non conforme au schéma ${schema} : ${errors.join(' ; ')}`);
    },
  };

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
    if (p.startsWith(COMPANIES_CONTROL)) return controlCompany(req, res, p.slice(COMPANIES_CONTROL.length), method);

    // Read before deciding: a fault may target the requests whose body names, say, one SIREN.
    const raw = await readText(req);
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
      day: today(),
      by: caller.clientId,
      // Refusals are always answered (thrown); a business answer may be lost by the fault.
      answer: (status, body) => void (loseResponse(fault, res) || send(res, status, body)),
    };
    if (method === 'GET' && p === '/healthcheck') return call.answer(200, { statut: 'OK' });
    if (answerLines(sim, call) || answerRoutingCodes(sim, call)) return;
    if (/^\/(siren|siret|code-routage)(\/|$)/.test(p)) throw new HttpError(501, `${method} ${p} n'est pas simulé`);
    throw new HttpError(404, `${method} ${p} : ressource inconnue`);
  }

  /**
   * The simulator's control, outside the Annuaire's API: `PUT /_simulator/companies/{siren}` {raisonSociale,
   * etatAdministratif?} makes the register know a company, as the real one knows every SIREN (a trial's companies);
   * in memory, as seeded ones. No token: the simulator's owner calls it, never the service.
   */
  async function controlCompany(req: http.IncomingMessage, res: http.ServerResponse, siren: string, method: string) {
    if (method !== 'PUT') return problem(res, 405, `PUT ${COMPANIES_CONTROL}{siren}`);
    if (!/^\d{9}$/.test(siren)) return problem(res, 400, `un SIREN a 9 chiffres : ${siren}`);
    let body: { raisonSociale?: unknown; etatAdministratif?: unknown };
    try {
      body = JSON.parse(await readText(req)) as typeof body;
    } catch {
      return problem(res, 400, 'corps JSON attendu : {"raisonSociale": "…", "etatAdministratif": "A" | "C"}');
    }
    const { raisonSociale, etatAdministratif = 'A' } = body ?? {};
    if (typeof raisonSociale !== 'string' || !raisonSociale.trim() || raisonSociale.length > 200)
      return problem(res, 400, 'raisonSociale : un texte de 1 à 200 caractères');
    if (etatAdministratif !== 'A' && etatAdministratif !== 'C') return problem(res, 400, 'etatAdministratif : A ou C');
    const idInstance = companies.get(siren)?.idInstance ?? 1_000_000 + companies.size;
    companies.set(siren, { siren, raisonSociale, etatAdministratif, idInstance });
    return send(res, 200, uniteLegale({ siren, raisonSociale, etatAdministratif }));
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
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
    seedLine: (line) => sim.commit(() => store.seed(line)),
    seedRoutingCode: (code) => structuredClone(sim.commit(() => store.routingCodes.seed(code, today()))),
    seedCompany: (c) => void companies.set(c.siren, { ...c, idInstance: 1_000_000 + companies.size }),
    lines: () => store.all(),
    routingCodes: () => structuredClone([...store.routingCodes.all()]),
    setFaults: (f) => faults.set(f),
    faultsSeen: () => faults.seen(),
    revokeTokens: () => tokens.revokeAll(),
  };
}
