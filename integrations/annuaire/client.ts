// Client of the PPF Annuaire API (ppf-openapi-annuaire-api-public 1.11.0). `baseUrl` is the server URL of the
// spec, base path included (https://aife.economie.gouv.fr/ppf/annuaire-public/v1); paths below are the spec's.
// No retries here: Temporal retries the activity, guided by AnnuaireError.retryable.
import type { z } from 'zod';
import { send, type Answer } from '../outbound-http';
import { AnnuaireError, errorFromResponse, networkError } from './errors';
import { tokenSource } from './token';
import {
  wireCompany,
  wireCreated,
  wireLine,
  wireRoutingCode,
  wireRoutingCodeCreated,
  wireSearch,
  type AnnuaireCompany,
  type AnnuaireLine,
  type CreatedLine,
  type LineFilters,
  type AnnuaireNewLine,
  type AnnuaireNewRoutingCode,
  type RoutingCode,
} from './types';

export { AnnuaireError } from './errors';
export * from './types';

export interface AnnuaireClientOptions {
  baseUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** `PPF-Rattachements` sent on writes: our affiliations, "SIREN[/SIRET[/Service]]" (the SIREN is the required part). */
  rattachements?: string[];
  /** Per request, token request included. */
  timeoutMs?: number;
  scope?: string;
}

export interface AnnuaireClient {
  createLine(line: AnnuaireNewLine): Promise<CreatedLine>;
  /** The line in force (on `dateObservation`, default today) for an addressing identifier; null when there is none. */
  getLine(identifiantAdressage: string, opts?: { dateObservation?: string }): Promise<AnnuaireLine | null>;
  /** The company (unité légale) the directory holds for a SIREN; null when it has none. */
  getCompany(siren: string): Promise<AnnuaireCompany | null>;
  /** Every matching line (pages are followed). */
  searchLines(filters: LineFilters): Promise<AnnuaireLine[]>;
  /** One page of matching lines in idInstance order (stable while lines are added), and how many match in all. */
  searchPage(
    filters: LineFilters,
    page: { offset: number; limit: number },
  ): Promise<{ lines: AnnuaireLine[]; total: number }>;
  /** Ends a line: it is no longer in force from `dateFinEffet` on. History is kept. */
  endLine(idInstance: number, dateFinEffet: string): Promise<void>;
  /** Masks (cancels) a line not yet in force (DELETE): kept in the history, never in force. */
  maskLine(idInstance: number): Promise<void>;
  /** A line as the directory records it, masked or not, by its idInstance; null when it has none. */
  getLineById(idInstance: number): Promise<AnnuaireLine | null>;
  /** Creates a routing code under a SIRET; a SIREN_SIRET_ROUTAGE line can only address an existing, open one. */
  createRoutingCode(code: AnnuaireNewRoutingCode): Promise<{ idInstance: number }>;
  /** The routing code the directory holds for a SIRET and identifiantRoutage; null when it has none. */
  getRoutingCode(siret: string, identifiantRoutage: string): Promise<RoutingCode | null>;
}

const PAGE = 100;
const MAX_PAGES = 20;

export function createAnnuaireClient(o: AnnuaireClientOptions): AnnuaireClient {
  const timeoutMs = o.timeoutMs ?? 10_000;
  const base = o.baseUrl.replace(/\/+$/, '');
  const tokens = tokenSource({ ...o, timeoutMs });

  async function call(method: string, path: string, body?: unknown, write = false): Promise<Answer> {
    const what = `${method} ${path.replace(/\?.*/, '')}`;
    const attempt = async (token: string) => {
      // The spec's Accept-Language enum is fr, en: no wildcard.
      const headers: Record<string, string> = {
        authorization: `Bearer ${token}`,
        accept: 'application/json, application/problem+json',
        'accept-language': 'fr',
      };
      if (body !== undefined) headers['content-type'] = 'application/json';
      // An array header parameter (style simple): comma-separated.
      if (write && o.rattachements?.length) headers['ppf-rattachements'] = o.rattachements.join(',');
      try {
        return await send(base + path, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          // Searches are sent as POST; setting a line's end date twice sets it once. A creation is not sent twice.
          idempotent: !(write && method === 'POST'),
          timeoutMs,
        });
      } catch (err) {
        throw networkError(err, what);
      }
    };
    let token = await tokens.get();
    let res = await attempt(token);
    if (res.status === 401) {
      // Revoked or expired early: one fresh token, one more try; a second 401 is a credentials problem.
      await res.discard().catch(() => {});
      tokens.invalidate(token);
      token = await tokens.get();
      res = await attempt(token);
    }
    if (!res.ok) throw await errorFromResponse(res, what);
    return res;
  }

  const json = async (res: Answer) => {
    try {
      return await res.json();
    } catch (err) {
      // The per-request timeout also covers reading the body: that is a transport fault, not a bad answer.
      if (!(err instanceof SyntaxError)) throw networkError(err, `reading ${res.url}`);
      throw new AnnuaireError(res.status, `${res.url}: the answer is not JSON`, false);
    }
  };

  const parse = <T>(schema: z.ZodType<T>, v: unknown, what: string): T => {
    const r = schema.safeParse(v);
    if (!r.success) throw new AnnuaireError(200, `unexpected ${what} answer: ${r.error.message}`, false);
    return r.data;
  };

  const client: AnnuaireClient = {
    async createLine(l) {
      const body = {
        periodeEffet: { dateDebutEffet: l.dateDebutEffet, ...(l.dateFinEffet && { dateFinEffet: l.dateFinEffet }) },
        informationAdressage: {
          siren: l.siren,
          ...(l.siret && { siret: l.siret }),
          ...(l.identifiantRoutage && { identifiantRoutage: l.identifiantRoutage }),
          ...(l.suffixeAdressage && { suffixeAdressage: l.suffixeAdressage }),
          matriculePlateforme: l.matriculePlateforme,
        },
      };
      return parse(wireCreated, await json(await call('POST', '/ligne-annuaire', body, true)), 'create');
    },

    async getLine(id, opts = {}) {
      const q = opts.dateObservation ? `?dateObservation=${encodeURIComponent(opts.dateObservation)}` : '';
      try {
        return parse(
          wireLine,
          await json(await call('GET', `/ligne-annuaire/code:${encodeURIComponent(id)}${q}`)),
          'line',
        );
      } catch (err) {
        if (err instanceof AnnuaireError && err.status === 404) return null;
        throw err;
      }
    },

    async getCompany(siren) {
      try {
        return parse(
          wireCompany,
          await json(await call('GET', `/siren/code-insee:${encodeURIComponent(siren)}`)),
          'company',
        );
      } catch (err) {
        if (err instanceof AnnuaireError && err.status === 404) return null;
        throw err;
      }
    },

    async searchLines(f) {
      const lines: AnnuaireLine[] = [];
      for (let page = 0; page < MAX_PAGES; page++) {
        const r = await client.searchPage(f, { offset: lines.length, limit: PAGE });
        lines.push(...r.lines);
        if (r.lines.length === 0 || lines.length >= r.total) break;
      }
      return lines;
    },

    async searchPage(f, { offset, limit }) {
      const strict = (valeur: string) => ({ op: 'strict', valeur });
      const hist = {
        ...(f.dateObservation && { dateObservation: strict(f.dateObservation) }),
        ...(f.dateDebutRecherche && { dateDebutRecherche: strict(f.dateDebutRecherche) }),
        ...(f.dateFinRecherche && { dateFinRecherche: strict(f.dateFinRecherche) }),
        ...(f.modeAudit !== undefined && { modeAudit: { op: 'strict', valeur: f.modeAudit } }),
      };
      const filtres = {
        ...(f.siren && { siren: strict(f.siren) }),
        ...(f.siret && { siret: strict(f.siret) }),
        ...(f.matriculePlateforme && { matriculePlateforme: strict(f.matriculePlateforme) }),
        ...(f.suffixeAdressage && { suffixeAdressage: strict(f.suffixeAdressage) }),
        ...(f.identifiantAdressage && { identifiantAdressage: { op: 'contient', valeur: f.identifiantAdressage } }),
        ...(Object.keys(hist).length > 0 && { historisation: hist }),
      };
      const body = { filtres, tris: [{ champ: 'idInstance', ordre: 'ascendant' }], limite: limit, ignorer: offset };
      const res = await call('POST', '/ligne-annuaire/recherche', body);
      if (res.status === 204) {
        await res.discard();
        return { lines: [], total: 0 }; // nothing matches
      }
      const r = parse(wireSearch, await json(res), 'search');
      // The total is optional in the spec: without it, a full page says there may be more.
      const more = r.resultats.length >= limit ? Number.MAX_SAFE_INTEGER : offset + r.resultats.length;
      return { lines: r.resultats, total: r.nombre_total_resultats ?? more };
    },

    async endLine(idInstance, dateFinEffet) {
      const res = await call('PATCH', `/ligne-annuaire/id-instance:${idInstance}`, { dateFinEffet }, true);
      await res.discard().catch(() => {}); // ended: what the body says does not matter
    },

    async maskLine(idInstance) {
      try {
        const res = await call('DELETE', `/ligne-annuaire/id-instance:${idInstance}`, undefined, true);
        await res.discard().catch(() => {});
      } catch (err) {
        // Gone is what we asked for; the read-back after the step says whether it is masked.
        if (!(err instanceof AnnuaireError && err.status === 404)) throw err;
      }
    },

    async getLineById(idInstance) {
      try {
        return parse(wireLine, await json(await call('GET', `/ligne-annuaire/id-instance:${idInstance}`)), 'line');
      } catch (err) {
        if (err instanceof AnnuaireError && err.status === 404) return null;
        throw err;
      }
    },

    async createRoutingCode(c) {
      const body = {
        siret: c.siret,
        identifiantRoutage: c.identifiantRoutage,
        libelleCodeRoutage: c.libelleCodeRoutage,
        natureEtablissement: c.natureEtablissement,
        etatAdministratif: c.etatAdministratif,
        ...(c.typeIdentifiantRoutage && { typeIdentifiantRoutage: c.typeIdentifiantRoutage }),
        ...(c.gestionEngagementJuridique !== undefined && { gestionEngagementJuridique: c.gestionEngagementJuridique }),
      };
      return parse(
        wireRoutingCodeCreated,
        await json(await call('POST', '/code-routage', body, true)),
        'routing code create',
      );
    },

    async getRoutingCode(siret, identifiantRoutage) {
      const path = `/code-routage/siret:${encodeURIComponent(siret)}/code:${encodeURIComponent(identifiantRoutage)}`;
      try {
        return parse(wireRoutingCode, await json(await call('GET', path)), 'routing code');
      } catch (err) {
        if (err instanceof AnnuaireError && err.status === 404) return null;
        throw err;
      }
    },
  };
  return client;
}
