// The simulator's control, outside the Annuaire's API: under /_simulator, no token (the simulator's owner calls it,
// never the service), no injected faults, no rate limit. It plays the directory's other actors for trials and tests
// (another platform under the real rules, the PPF), seeds in bulk, and sets the simulator's day and settings.
// ADMIN.md shows each route.
import type http from 'node:http';
import { uniteLegale } from './companies';
import { realToday } from './days';
import { HttpError, readText, send } from './http';
import { cease, createAs, endAs, maskAs } from './others';
import { checkedSeeds, companyInput, day, jsonBody, manyBody, object, platformLineInput } from './admin-input';
import { wireLine } from './search';
import type { Sim } from './call';

export const ADMIN_PATH = '/_simulator';
/** A bulk body may be large (100,000 lines are about 10 MB); every other admin body stays under the default 1 MB. */
const BULK_LIMIT = 64 * 1024 * 1024;

/** Answers a request under ADMIN_PATH (`p`: its path, decoded, without a trailing slash). */
export async function answerAdmin(
  sim: Sim,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  p: string,
  method: string,
): Promise<void> {
  const route = p.slice(ADMIN_PATH.length) || '/';
  const raw = await readText(req, route.endsWith(':bulk') ? BULK_LIMIT : undefined);
  const allow = (...methods: string[]) => {
    if (!methods.includes(method)) throw new HttpError(405, `${methods.join(' ou ')} ${ADMIN_PATH}${route}`);
  };
  const { store } = sim;
  let m: RegExpMatchArray | null;

  if (route === '/day') {
    allow('GET', 'PUT');
    if (method === 'PUT') {
      const o = object(jsonBody(raw), '', ['day'], ['day']);
      const fixed = day(o.day, 'day', '', true) ?? null;
      sim.commit(() => store.setSettings({ day: fixed }));
    }
    return send(res, 200, dayView(sim));
  }
  if (route === '/settings') {
    allow('GET', 'PUT');
    if (method === 'PUT') {
      const o = object(jsonBody(raw), '', ['changesVisibleNextDay', 'rateLimitPerSecond']);
      const { changesVisibleNextDay: next, rateLimitPerSecond: rate } = o;
      if (next !== undefined && typeof next !== 'boolean')
        throw new HttpError(400, 'changesVisibleNextDay : true ou false');
      if (rate !== undefined && rate !== null && !(typeof rate === 'number' && rate > 0 && Number.isFinite(rate)))
        throw new HttpError(400, 'rateLimitPerSecond : un nombre de requêtes par seconde > 0, ou null (sans limite)');
      if (next !== undefined) sim.commit(() => store.setSettings({ changesVisibleNextDay: next }));
      if (rate !== undefined) sim.limiter.set(rate ?? undefined);
    }
    return send(res, 200, settingsView(sim));
  }
  if (route === '/lines') {
    allow('POST');
    const { line, takeOver } = platformLineInput(jsonBody(raw));
    return send(res, 201, wireLine(sim.commit(() => createAs(store, line, takeOver))));
  }
  if ((m = route.match(/^\/lines\/([^/]+)$/))) {
    allow('PATCH', 'DELETE');
    if (!/^\d+$/.test(m[1]!)) throw new HttpError(400, `idInstance : un entier attendu (reçu ${m[1]})`);
    const id = Number(m[1]);
    if (method === 'DELETE') return send(res, 200, wireLine(sim.commit(() => maskAs(store, id))));
    const o = object(jsonBody(raw), '', ['dateFinEffet'], []);
    if (!('dateFinEffet' in o))
      throw new HttpError(400, 'propriété obligatoire « dateFinEffet » absente (null : sans fin)');
    const end = day(o.dateFinEffet, 'dateFinEffet', '', true) ?? null;
    return send(res, 200, wireLine(sim.commit(() => endAs(store, id, end))));
  }
  if (route === '/lines:bulk') {
    allow('POST');
    const seeds = checkedSeeds(store, manyBody(raw));
    const lines = sim.commit(() => store.seedChecked(seeds));
    return send(res, 201, {
      created: lines.length,
      ...(lines.length && { firstIdInstance: lines[0]!.idInstance, lastIdInstance: lines.at(-1)!.idInstance }),
    });
  }
  if (route === '/companies:bulk') {
    allow('POST');
    const companies = manyBody(raw).map((x, i) => companyInput(x, `[${i}] `));
    sim.commit(() => companies.forEach((c) => store.putCompany(c)));
    return send(res, 201, { companies: companies.length });
  }
  if ((m = route.match(/^\/companies\/([^/]+)\/cessation$/))) {
    allow('POST');
    const siren = sirenOf(m[1]!);
    const o = object(jsonBody(raw, {}), '', ['day']);
    const today = store.day();
    const on = (day(o.day, 'day') as string | undefined) ?? today;
    if (on < today)
      throw new HttpError(
        400,
        `day : ${on} est passé (jour du simulateur ${today}) : l'historique n'est pas modifiable`,
      );
    const r = sim.commit(() => cease(store, siren, on));
    return send(res, 200, {
      uniteLegale: uniteLegale(r.company),
      ended: r.ended.map(wireLine),
      masked: r.masked.map(wireLine),
    });
  }
  if ((m = route.match(/^\/companies\/([^/]+)$/))) {
    // Makes the register know a company, as the real one knows every SIREN (a trial's companies).
    allow('PUT');
    const siren = sirenOf(m[1]!);
    const company = companyInput(jsonBody(raw), '', siren);
    sim.commit(() => store.putCompany(company));
    return send(res, 200, uniteLegale(company));
  }
  throw new HttpError(404, `${method} ${ADMIN_PATH}${route} : route de contrôle inconnue (voir ADMIN.md)`);
}

function sirenOf(s: string): string {
  if (!/^\d{9}$/.test(s)) throw new HttpError(400, `un SIREN a 9 chiffres : ${s}`);
  return s;
}

const dayView = ({ store }: Sim) => ({ day: store.day(), fixed: store.settings.day !== null, realDay: realToday() });

const settingsView = (sim: Sim) => ({
  ...dayView(sim),
  changesVisibleNextDay: sim.store.settings.changesVisibleNextDay,
  rateLimitPerSecond: sim.limiter.get() ?? null,
});
