// The code-routage endpoints (create, search, read by SIRET and id or by instance id) and the company lookup
// GET /siren/code-insee:{siren}.
import { HttpError, checkRattachements, listParam, observationDay, readJson } from './http';
import { uniteLegale } from './companies';
import {
  ROUTING_CODE_FIELDS,
  searchRoutingCodes,
  wireRoutingCode,
  type RoutingCodeData,
  type RoutingCodeSearchBody,
} from './routing-codes';
import { DEFAULT_SINCE } from './store';
import type { Call, Sim } from './call';

/** Answers a routing-code or company request; false when the request is not one. */
export function answerRoutingCodes(sim: Sim, c: Call): boolean {
  const { method, path: p } = c;
  let m: RegExpMatchArray | null;
  if (method === 'GET' && (m = p.match(/^\/siren\/code-insee:(.+)$/))) {
    if (!/^\d{9}$/.test(m[1]!)) throw new HttpError(400, 'siren doit comporter 9 chiffres');
    const company = sim.companies.get(m[1]!);
    if (!company || company.known === false) throw new HttpError(404, `aucune unité légale de SIREN ${m[1]}`);
    const historisation = { idInstance: company.idInstance, dateDebutEffet: DEFAULT_SINCE, creePar: 'PPF' };
    c.answer(200, { ...uniteLegale(company), historisation });
    return true;
  }
  if (method === 'POST' && p === '/code-routage') {
    checkRattachements(c.req);
    const body = readJson(c.req, c.raw);
    sim.check('createCodeRoutageBody', body);
    const code = sim.commit(() => sim.store.routingCodes.create(body as RoutingCodeData, c.by, c.day));
    c.answer(201, { idInstance: code.idInstance, siret: code.siret, identifiantRoutage: code.identifiantRoutage });
    return true;
  }
  if (method === 'POST' && p === '/code-routage/recherche') {
    const body = readJson(c.req, c.raw) ?? {};
    sim.check('searchCodeRoutage', body);
    const b = body as RoutingCodeSearchBody;
    const r = searchRoutingCodes(sim.store.routingCodes.all(), b, c.day);
    if (r.total === 0) c.answer(204);
    else c.answer(r.partial ? 206 : 200, { recherche: b, nombre_total_resultats: r.total, resultats: r.page });
    return true;
  }
  if (method === 'GET' && (m = p.match(/^\/code-routage\/siret:([^/]*)\/code:(.+)$/)))
    return (bySiret(sim, c, m[1]!, m[2]!), true);
  if (method === 'GET' && (m = p.match(/^\/code-routage\/id-instance:(.+)$/))) {
    if (!/^\d+$/.test(m[1]!)) throw new HttpError(400, 'id-instance doit être un entier');
    const code = sim.store.routingCodes.byId(Number(m[1]));
    if (!code) throw new HttpError(404, `aucun code routage d'idInstance ${m[1]}`);
    c.answer(200, wireRoutingCode(code, listParam(c.url, 'champs', ROUTING_CODE_FIELDS)));
    return true;
  }
  return false;
}

function bySiret(sim: Sim, c: Call, siret: string, id: string): void {
  if (!/^\d{14}$/.test(siret)) throw new HttpError(400, 'siret doit comporter 14 chiffres');
  if (!/^(?!\s+$)[-_/@a-zA-Z0-9]{1,100}$/.test(id))
    throw new HttpError(400, `identifiant-routage invalide (« ${id} ») : 1 à 100 caractères parmi A-Z a-z 0-9 - _ / @`);
  const on = observationDay(c.url, c.day);
  const champs = listParam(c.url, 'champs', ROUTING_CODE_FIELDS);
  const inclure = listParam(c.url, 'inclure', ['siren', 'siret']);
  const code = sim.store.routingCodes.get(siret, id);
  if (!code || code.dateDebutEffet > on)
    throw new HttpError(404, `aucun code routage ${id} en vigueur le ${on} pour le SIRET ${siret}`);
  const company = inclure?.includes('siren') ? sim.companies.get(siret.slice(0, 9)) : undefined;
  // The simulator knows companies, not their establishments: inclure=siret adds nothing.
  c.answer(200, { ...wireRoutingCode(code, champs), ...(company && { uniteLegale: uniteLegale(company) }) });
}
