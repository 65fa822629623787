// Local simulator of the PPF Annuaire: the ligne-annuaire and code-routage endpoints of the official OpenAPI file
// (requests checked against its schemas), GET /siren/code-insee:{siren}, an OAuth2 client-credentials token endpoint
// standing in for PISTE, optional persistence and fault injection. Served under the spec's base path and, for
// convenience, at the root as well.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { applyFault, faultInjector, loseResponse, type FaultSetting } from '../faults';
import { search, wireLine, type SearchBody } from './search';
import { KNOWN_COMPANIES } from './companies';
import { loadSpecValidators, type BodySchema } from './spec';
import {
  ROUTING_CODE_FIELDS,
  searchRoutingCodes,
  wireRoutingCode,
  type RoutingCodeData,
  type RoutingCodeSearchBody,
  type SeedRoutingCode,
  type StoredRoutingCode,
} from './routing-codes';
import { DEFAULT_SINCE, LineStore, Refusal, today, type SeedLine, type StoredLine } from './store';

/** The path of the OpenAPI's server URL, https://aife.economie.gouv.fr/ppf/annuaire-public/v1. */
export const BASE_PATH = '/ppf/annuaire-public/v1';
/** Stands in for PISTE's OAuth2 token endpoint; served beside the API, outside the base path. */
const TOKEN_PATH = '/oauth/token';

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

const TITRES: Record<number, string> = {
  400: 'Mauvaise requête',
  401: 'Non autorisé',
  403: 'Accès refusé',
  404: 'Non trouvée',
  405: 'Méthode non autorisée',
  408: 'Délai de la requête dépassé',
  422: 'Erreur de validation des données',
  429: 'Trop de requêtes',
  500: 'Erreur interne du serveur',
  501: 'Non implémenté',
  503: 'Service indisponible',
};

class HttpError extends Refusal {}

export interface SimCompany {
  siren: string;
  raisonSociale: string;
  etatAdministratif?: 'A' | 'C';
  typeEntite?: 'Publique' | 'Privée assujettie';
}

export async function startAnnuaireSimulator(o: AnnuaireSimulatorOptions): Promise<AnnuaireSimulator> {
  const validators = loadSpecValidators(o.specFile); // fails here, with the path, when the spec file is absent
  const store = new LineStore(o.stateFile);
  const clients = o.clients ?? { 'pa-dev': 'pa-dev-secret' };
  const ttl = o.tokenTtlSeconds ?? 3600;
  const tokens = new Map<string, { clientId: string; expiresAt: number }>();
  const faults = faultInjector(o.faults, (status) => `panne simulée (${status})`);
  const companies = new Map<string, SimCompany & { idInstance: number }>();
  for (const c of KNOWN_COMPANIES) companies.set(c.siren, { ...c, idInstance: 1_000_000 + companies.size });

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

    // Read before deciding: a fault may target the requests whose body names, say, one SIREN.
    const raw = await readText(req);
    const fault = faults.decide({ target: `${method} ${p}`, body: raw, exempt: p === TOKEN_PATH });
    if (await applyFault(fault, req, res, (status, detail) => problem(res, status, detail))) return;
    if (p === TOKEN_PATH) return issueToken(req, res, raw);

    const caller = authenticate(req);
    if (!caller) {
      res.setHeader('www-authenticate', 'Bearer');
      return problem(res, 401, "jeton d'accès absent, inconnu ou expiré");
    }
    const day = today();
    const by = caller.clientId;
    let m: RegExpMatchArray | null;
    // A business answer, unless the fault says it is lost (the work done all the same); refusals are always answered.
    const answer = (status: number, body?: unknown) => (loseResponse(fault, res) ? undefined : send(res, status, body));

    if (method === 'GET' && p === '/healthcheck') return answer(200, { statut: 'OK' });
    if (method === 'POST' && p === '/ligne-annuaire/recherche') {
      const body = readJson(req, raw) ?? {};
      check('searchLigneAnnuaire', body);
      const b = body as SearchBody;
      const siren = b.filtres?.siren?.valeur;
      if (siren) commit(() => store.ensureDefault(siren));
      const r = search(store.candidates(siren || undefined), b, day);
      if (r.total === 0) return answer(204);
      return answer(r.partial ? 206 : 200, { recherche: b, nombre_total_resultats: r.total, resultats: r.page });
    }
    if (method === 'POST' && p === '/ligne-annuaire') {
      checkRattachements(req);
      const body = readJson(req, raw);
      check('createLigneAnnuaireBody', body);
      const b = body as {
        periodeEffet?: { dateDebutEffet: string; dateFinEffet?: string | null };
        informationAdressage?: Omit<StoredLine, 'idInstance'>;
      };
      if (!b.periodeEffet || !b.informationAdressage)
        throw new HttpError(400, 'periodeEffet et informationAdressage sont obligatoires');
      const { siren, siret, identifiantRoutage, suffixeAdressage, matriculePlateforme } = b.informationAdressage;
      const line = commit(() =>
        store.create(
          {
            siren,
            siret,
            identifiantRoutage,
            suffixeAdressage,
            matriculePlateforme,
            dateDebutEffet: b.periodeEffet!.dateDebutEffet,
            ...(b.periodeEffet!.dateFinEffet && { dateFinEffet: b.periodeEffet!.dateFinEffet }),
          },
          by,
          day,
        ),
      );
      return answer(201, {
        idInstance: line.idInstance,
        identifiantAdressage: line.identifiantAdressage,
        dateDebutEffet: line.dateDebutEffet,
      });
    }
    if (method === 'GET' && (m = p.match(/^\/ligne-annuaire\/code:(.+)$/))) {
      const id = m[1]!;
      const on = url.searchParams.get('dateObservation') ?? day;
      if (!/^\d{4}-\d{2}-\d{2}$/.test(on)) throw new HttpError(400, 'dateObservation doit être une date AAAA-MM-JJ');
      commit(() => store.ensureDefault(id.slice(0, 9)));
      const found = search(
        store.candidates(id.slice(0, 9)),
        { filtres: { historisation: { dateObservation: { valeur: on } } } },
        day,
      ).page.filter((l) => l.identifiantAdressage === id);
      if (!found[0]) throw new HttpError(404, `aucune ligne d'annuaire en vigueur le ${on} pour ${id}`);
      return answer(200, found[0]);
    }
    if ((m = p.match(/^\/ligne-annuaire\/id-instance:(.+)$/))) {
      if (!/^\d+$/.test(m[1]!)) throw new HttpError(400, 'id-instance doit être un entier');
      const id = Number(m[1]);
      if (method === 'GET') {
        const l = store.byId(id);
        if (!l) throw new HttpError(404, `aucune ligne d'annuaire d'idInstance ${id}`);
        return answer(200, wireLine(l));
      }
      if (method === 'PATCH' || method === 'PUT') {
        checkRattachements(req);
        const body = readJson(req, raw);
        check(method === 'PATCH' ? 'updatePatchLigneAnnuaireBody' : 'updatePutLigneAnnuaireBody', body);
        const b = body as { dateFinEffet?: string | null; matriculePlateforme?: string };
        const current = store.byId(id);
        if (!current) throw new HttpError(404, `aucune ligne d'annuaire d'idInstance ${id}`);
        if (b.matriculePlateforme && b.matriculePlateforme !== current.matriculePlateforme) {
          throw new HttpError(
            422,
            'changer de plateforme se fait en clôturant la ligne puis en créant une nouvelle ligne (historique conservé)',
          );
        }
        // PUT is exhaustive: an absent end date means none. PATCH leaves what it does not name.
        const end = method === 'PUT' ? (b.dateFinEffet ?? null) : b.dateFinEffet;
        if (end === undefined) throw new HttpError(400, 'rien à modifier : dateFinEffet absente');
        const l = commit(() => store.setEnd(id, end, by, day));
        return answer(200, {
          idInstance: l.idInstance,
          identifiantAdressage: l.identifiantAdressage,
          dateDebutEffet: l.dateDebutEffet,
        });
      }
      if (method === 'DELETE') {
        // The PPF never erases a line: "supprimer" masks one not yet in force (a masking line cancels it).
        checkRattachements(req);
        commit(() => store.mask(id, by, day));
        return answer(204);
      }
    }
    if (method === 'GET' && (m = p.match(/^\/siren\/code-insee:(.+)$/))) {
      if (!/^\d{9}$/.test(m[1]!)) throw new HttpError(400, 'siren doit comporter 9 chiffres');
      const c = companies.get(m[1]!);
      if (!c) throw new HttpError(404, `aucune unité légale de SIREN ${m[1]}`);
      return answer(200, {
        siren: c.siren,
        raisonSociale: c.raisonSociale,
        typeEntite: c.typeEntite ?? 'Privée assujettie',
        etatAdministratif: c.etatAdministratif ?? 'A',
        diffusible: 'O',
        historisation: { idInstance: c.idInstance, dateDebutEffet: DEFAULT_SINCE, creePar: 'PPF' },
      });
    }
    if (method === 'POST' && p === '/code-routage') {
      checkRattachements(req);
      const body = readJson(req, raw);
      check('createCodeRoutageBody', body);
      const c = commit(() => store.routingCodes.create(body as RoutingCodeData, by, day));
      return answer(201, { idInstance: c.idInstance, siret: c.siret, identifiantRoutage: c.identifiantRoutage });
    }
    if (method === 'POST' && p === '/code-routage/recherche') {
      const body = readJson(req, raw) ?? {};
      check('searchCodeRoutage', body);
      const b = body as RoutingCodeSearchBody;
      const r = searchRoutingCodes(store.routingCodes.all(), b, day);
      if (r.total === 0) return answer(204);
      return answer(r.partial ? 206 : 200, { recherche: b, nombre_total_resultats: r.total, resultats: r.page });
    }
    if (method === 'GET' && (m = p.match(/^\/code-routage\/siret:([^/]*)\/code:(.+)$/))) {
      const [siret, id] = [m[1]!, m[2]!];
      if (!/^\d{14}$/.test(siret)) throw new HttpError(400, 'siret doit comporter 14 chiffres');
      if (!/^(?!\s+$)[-_/@a-zA-Z0-9]{1,100}$/.test(id))
        throw new HttpError(
          400,
          `identifiant-routage invalide (« ${id} ») : 1 à 100 caractères parmi A-Z a-z 0-9 - _ / @`,
        );
      const on = url.searchParams.get('dateObservation') ?? day;
      if (!/^\d{4}-\d{2}-\d{2}$/.test(on)) throw new HttpError(400, 'dateObservation doit être une date AAAA-MM-JJ');
      const champs = listParam(url, 'champs', ROUTING_CODE_FIELDS);
      const inclure = listParam(url, 'inclure', ['siren', 'siret']);
      const c = store.routingCodes.get(siret, id);
      if (!c || c.dateDebutEffet > on)
        throw new HttpError(404, `aucun code routage ${id} en vigueur le ${on} pour le SIRET ${siret}`);
      const company = inclure?.includes('siren') ? companies.get(siret.slice(0, 9)) : undefined;
      return answer(200, {
        ...wireRoutingCode(c, champs),
        // The simulator knows companies, not their establishments: inclure=siret adds nothing.
        ...(company && {
          uniteLegale: {
            siren: company.siren,
            raisonSociale: company.raisonSociale,
            typeEntite: company.typeEntite ?? 'Privée assujettie',
            etatAdministratif: company.etatAdministratif ?? 'A',
            diffusible: 'O',
          },
        }),
      });
    }
    if (method === 'GET' && (m = p.match(/^\/code-routage\/id-instance:(.+)$/))) {
      if (!/^\d+$/.test(m[1]!)) throw new HttpError(400, 'id-instance doit être un entier');
      const c = store.routingCodes.byId(Number(m[1]));
      if (!c) throw new HttpError(404, `aucun code routage d'idInstance ${m[1]}`);
      return answer(200, wireRoutingCode(c, listParam(url, 'champs', ROUTING_CODE_FIELDS)));
    }
    if (/^\/(siren|siret|code-routage)(\/|$)/.test(p)) throw new HttpError(501, `${method} ${p} n'est pas simulé`);
    throw new HttpError(404, `${method} ${p} : ressource inconnue`);
  }

  // Runs a state change and persists it (a no-op change costs one small write; fine for a simulator).
  function commit<T>(fn: () => T): T {
    const r = fn();
    store.save();
    return r;
  }

  function check(schema: BodySchema, body: unknown) {
    const errors = validators.check(schema, body);
    if (errors.length)
      throw new HttpError(400, `corps de requête non conforme au schéma ${schema} : ${errors.join(' ; ')}`);
  }

  /** A list query parameter (form, explode=false: comma-separated) whose items are among `allowed`. */
  function listParam(url: URL, name: string, allowed: readonly string[]): string[] | undefined {
    const v = url.searchParams.getAll(name).join(',');
    if (!v) return undefined;
    const items = v.split(',').map((s) => s.trim());
    const bad = items.find((i) => !allowed.includes(i));
    if (bad !== undefined)
      throw new HttpError(400, `paramètre ${name} invalide (« ${bad} ») : valeurs permises ${allowed.join(', ')}`);
    return items;
  }

  function checkRattachements(req: http.IncomingMessage) {
    const h = req.headers['ppf-rattachements'];
    if (h === undefined) return; // optional in the spec
    const items = (Array.isArray(h) ? h.join(',') : h).split(',').map((s) => s.trim());
    const bad = items.find((i) => i.length > 209 || !/^\d{9}(\/\d{14}(\/[^/]+)?)?$/.test(i));
    if (bad !== undefined)
      throw new HttpError(400, `en-tête PPF-Rattachements invalide (« ${bad} ») : SIREN[/SIRET[/Service]] attendu`);
  }

  function authenticate(req: http.IncomingMessage) {
    const m = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '');
    const t = m && tokens.get(m[1]!);
    if (!t || t.expiresAt <= Date.now()) return undefined;
    return t;
  }

  function issueToken(req: http.IncomingMessage, res: http.ServerResponse, raw: string) {
    const oauthError = (status: number, error: string, description: string) =>
      send(res, status, { error, error_description: description });
    if (req.method !== 'POST') return oauthError(405, 'invalid_request', 'POST expected');
    const form = new URLSearchParams(raw);
    let id = form.get('client_id');
    let secret = form.get('client_secret');
    const basic = /^Basic (\S+)$/i.exec(req.headers.authorization ?? '');
    if (basic) [id, secret] = Buffer.from(basic[1]!, 'base64').toString().split(':') as [string, string];
    if (form.get('grant_type') !== 'client_credentials')
      return oauthError(400, 'unsupported_grant_type', 'only client_credentials');
    if (!id || !secret || clients[id] === undefined || !safeEqual(clients[id]!, secret)) {
      return oauthError(401, 'invalid_client', 'unknown client or wrong secret');
    }
    const token = crypto.randomBytes(24).toString('base64url');
    tokens.set(token, { clientId: id, expiresAt: Date.now() + ttl * 1000 });
    return send(res, 200, { access_token: token, token_type: 'Bearer', expires_in: ttl, scope: 'openid' });
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
    seedLine: (line) => commit(() => store.seed(line)),
    seedRoutingCode: (code) => structuredClone(commit(() => store.routingCodes.seed(code, today()))),
    seedCompany: (c) => void companies.set(c.siren, { ...c, idInstance: 1_000_000 + companies.size }),
    lines: () => store.all(),
    routingCodes: () => structuredClone([...store.routingCodes.all()]),
    setFaults: (f) => faults.set(f),
    faultsSeen: () => faults.seen(),
    revokeTokens: () => tokens.clear(),
  };
}

function send(res: http.ServerResponse, status: number, body?: unknown, type = 'application/json') {
  if (body === undefined) return void res.writeHead(status).end();
  res.writeHead(status, { 'content-type': `${type}; charset=utf-8`, 'content-language': 'fr' });
  res.end(JSON.stringify(body));
}

function problem(res: http.ServerResponse, statut: number, detail: string) {
  send(
    res,
    statut,
    { type: 'about:blank', titre: TITRES[statut] ?? `Erreur ${statut}`, statut, detail },
    'application/problem+json',
  );
}

async function readText(req: http.IncomingMessage, limit = 1_000_000): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > limit) throw new HttpError(400, 'corps de requête trop volumineux');
    chunks.push(c);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function readJson(req: http.IncomingMessage, text: string): unknown {
  if (!text.trim()) return undefined;
  if (!/json/i.test(req.headers['content-type'] ?? ''))
    throw new HttpError(400, 'Content-Type application/json attendu');
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, 'corps de requête : JSON mal formé');
  }
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}
