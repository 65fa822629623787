// The Recherche d'entreprises simulator on the wire, as the service (GET /search) and a trial's owner (/_simulator)
// use it: lookups by SIREN and SIRET, the text search, directors of both kinds, what the public API never shows, every
// answer checked against the contract's `payload` schema, its refusals, the limit per client address, injected
// faults, persistence across restarts, and the control's refusals.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRechercheSimulator, type RechercheSimulator } from '../../simulators/recherche-entreprises';

const CONTRACT = path.join(import.meta.dirname, '../../spec/recherche-entreprises/open-api.yml');

/**
 * The contract's `payload` schema, compiled. Ajv reads OpenAPI's `nullable` itself. Two readings the contract needs:
 * its date-times carry no zone (its own example, "2023-09-21T03:34:50", is what the real API sends), and
 * `type_dirigeant` is the fixed value its description gives (else any object matches both `dirigeant_pp` and
 * `dirigeant_pm`, and their `oneOf` fails). `closed`: every object that lists its properties takes no other, so the
 * simulator is also checked to send only the contract's fields.
 */
function contractValidator(closed: boolean) {
  const doc = parse(fs.readFileSync(CONTRACT, 'utf8')) as { components: { schemas: Record<string, any> } };
  const schemas = structuredClone(doc.components.schemas);
  schemas.dirigeant_pp.properties.type_dirigeant.enum = ['personne physique'];
  schemas.dirigeant_pm.properties.type_dirigeant.enum = ['personne morale'];
  if (closed) {
    schemas.result.properties.score = { type: 'number' }; // offered by `include`, not listed in `result`
    const close = (s: any): void => {
      if (!s || typeof s !== 'object') return;
      if (s.type === 'object' && s.properties && s.additionalProperties === undefined) s.additionalProperties = false;
      Object.values(s).forEach(close);
    };
    close(schemas);
  }
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/);
  ajv.addSchema({ $id: 'contract', components: { schemas } });
  return ajv.compile({ $ref: 'contract#/components/schemas/payload' });
}
const validPayload = contractValidator(false);
const closedPayload = contractValidator(true);

type Answer = { status: number; body: any; headers: Headers };
const sims: RechercheSimulator[] = [];
afterAll(() => Promise.all(sims.map((s) => s.close())));

async function start(o: Partial<Parameters<typeof startRechercheSimulator>[0]> = {}) {
  const sim = await startRechercheSimulator({ host: '127.0.0.1', port: 0, ...o });
  sims.push(sim);
  const call = async (url: string, init?: RequestInit): Promise<Answer> => {
    const res = await fetch(url, init);
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  };
  return {
    sim,
    /** GET /search: every 200 is checked against the contract, and against its fields alone. */
    search: async (query: string) => {
      const a = await call(`${sim.url}/search?${query}`);
      if (a.status === 200) {
        expect(validPayload(a.body), JSON.stringify(validPayload.errors)).toBe(true);
        expect(closedPayload(a.body), JSON.stringify(closedPayload.errors)).toBe(true);
      }
      return a;
    },
    raw: (p: string, init?: RequestInit) => call(sim.url + p, init),
    admin: (method: string, p: string, body?: unknown) =>
      call(`${sim.url}/_simulator${p}`, {
        method,
        ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      }),
  };
}

const DUPONT = {
  type_dirigeant: 'personne physique',
  nom: 'Dupont',
  prenoms: 'Jean Marie',
  qualite: 'Président',
  date_de_naissance: '1964-09',
  nationalite: 'Française',
} as const;
const AUDITOR = {
  type_dirigeant: 'personne morale',
  siren: '784824153',
  denomination: 'KPMG S.A.',
  qualite: 'Commissaire aux comptes titulaire',
} as const;

describe('the API, as the service calls it', () => {
  let s: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    s = await start({ rateLimitPerSecond: null });
    s.sim.seedCompany({
      siren: '552032534',
      nom_raison_sociale: 'Société Générale des Eaux',
      dirigeants: [DUPONT, AUDITOR],
    });
    s.sim.seedCompany({
      siren: '356000000',
      nom_raison_sociale: 'LA POSTE',
      nature_juridique: '5510',
      dirigeants: [{ type_dirigeant: 'personne physique', nom: 'Wahl', prenoms: 'Philippe', qualite: 'Président' }],
    });
    s.sim.seedCompany({ siren: '404833048', nom_raison_sociale: 'Cachée', diffusible: false, dirigeants: [DUPONT] });
    s.sim.seedCompany({
      siren: '130025265',
      nom_raison_sociale: 'Ancienne Poste',
      etat_administratif: 'C',
      dirigeants: [],
    });
  });

  it('looks a company up by SIREN, with its directors of both kinds', async () => {
    const a = await s.search('q=552032534');
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ total_results: 1, page: 1, per_page: 10, total_pages: 1 });
    const [r] = a.body.results;
    expect(r).toMatchObject({
      siren: '552032534',
      nom_complet: 'SOCIÉTÉ GÉNÉRALE DES EAUX',
      nom_raison_sociale: 'Société Générale des Eaux',
      sigle: null,
      etat_administratif: 'A',
      nature_juridique: '5710',
      nombre_etablissements: 1,
      nombre_etablissements_ouverts: 1,
      matching_etablissements: [],
    });
    expect(r.dirigeants).toEqual([
      { ...DUPONT, annee_de_naissance: '1964' },
      {
        siren: '784824153',
        denomination: 'KPMG S.A.',
        qualite: 'Commissaire aux comptes titulaire',
        type_dirigeant: 'personne morale',
      },
    ]);
    expect(r.siege.siret).toMatch(/^552032534\d{5}$/);
    expect(r).not.toHaveProperty('score');
    expect((await s.search('q=552%20032%20534')).body.total_results).toBe(1); // spaces, as typed from a Kbis
  });

  it('looks a company up by SIRET: its SIREN, other filters ignored, the SIRET asked among its establishments', async () => {
    const siret = (await s.search('q=552032534')).body.results[0].siege.siret;
    const a = await s.search(`q=${siret}&etat_administratif=C`);
    expect(a.body.total_results).toBe(1);
    expect(a.body.results[0].matching_etablissements).toEqual([expect.objectContaining({ siret, est_siege: true })]);
    const other = await s.search('q=55203253400099');
    expect([other.body.total_results, other.body.results[0].matching_etablissements]).toEqual([1, []]);
  });

  it('searches text in names and directors, case and accents aside, every word needed', async () => {
    const names = async (q: string) => (await s.search(q)).body.results.map((r: any) => r.siren);
    expect(await names('q=societe%20GENERALE')).toEqual(['552032534']);
    expect(await names('q=dupont%20jean')).toEqual(['552032534']); // a director; never the non-diffusible one
    expect(await names('q=kpmg')).toEqual(['552032534']);
    expect(await names('q=poste')).toEqual(['130025265', '356000000']);
    expect(await names('q=poste%20wahl')).toEqual(['356000000']);
    expect(await names('q=dupont%20inconnu')).toEqual([]);
    const page2 = await s.search('q=poste&per_page=1&page=2');
    expect(page2.body).toMatchObject({ total_results: 2, per_page: 1, page: 2, total_pages: 2 });
    expect(page2.body.results.map((r: any) => r.siren)).toEqual(['356000000']);
    expect(await names('q=poste&etat_administratif=C')).toEqual(['130025265']);
    expect(await names('nom_personne=dupont&date_naissance_personne_min=1964-01-01')).toEqual(['552032534']);
    expect(await names('q=poste&code_postal=75015')).toEqual([]); // data the simulator does not hold: no match
  });

  it('never shows a non-diffusible or unknown company; shows a ceased one', async () => {
    for (const q of ['q=404833048', 'q=cachee', 'q=123456782', 'q=12345678200011'])
      expect((await s.search(q)).body).toMatchObject({ results: [], total_results: 0, total_pages: 0 });
    expect((await s.search('q=130025265')).body.results[0]).toMatchObject({
      etat_administratif: 'C',
      nombre_etablissements_ouverts: 0,
      siege: { etat_administratif: 'F' },
    });
  });

  it('minimal answers carry only the secondary fields included', async () => {
    const minimal = (await s.search('q=552032534&minimal=true')).body.results[0];
    for (const f of ['dirigeants', 'siege', 'complements', 'finances', 'matching_etablissements', 'tva', 'score'])
      expect(minimal).not.toHaveProperty(f);
    const some = (await s.search('q=552032534&minimal=TRUE&include=dirigeants,score')).body.results[0];
    expect(Object.keys(some)).toEqual(expect.arrayContaining(['dirigeants', 'score', 'siren']));
    expect(some).not.toHaveProperty('siege');
  });

  it('refuses as the real API does, and ignores what it ignores', async () => {
    const erreur = async (q: string) => {
      const a = await s.search(q);
      expect(a.status, q).toBe(400);
      return a.body.erreur as string;
    };
    expect(await erreur('')).toBe('Veuillez indiquer au moins un paramètre de recherche.');
    expect(await erreur('q=')).toBe('Veuillez indiquer au moins un paramètre de recherche.');
    expect(await erreur('q=poste&per_page=26')).toMatch(/`per_page` entre `1` et `25`/);
    expect(await erreur('q=poste&per_page=0')).toMatch(/per_page/);
    expect(await erreur('q=poste&page=0')).toMatch(/`page` entre/);
    expect(await erreur('q=poste&page=1.5')).toMatch(/`page` entier/);
    expect(await erreur('q=poste&page=99999999999999999999999')).toMatch(/`page`/);
    expect(await erreur('q=poste&page=1000&per_page=25')).toMatch(/10 000/);
    expect(await erreur('q=poste&include=siege')).toMatch(/minimal=True/);
    expect(await erreur('q=poste&minimal=true&include=adresse')).toMatch(/champ à inclure/);
    expect(await erreur('q=poste&minimal=oui')).toMatch(/minimal/);
    expect(await erreur('q=po')).toMatch(/3 caractères/);
    expect(await erreur('q=poste&est_bio=peut-etre')).toMatch(/est_bio/);
    expect(await erreur('q=poste&etat_administratif=X')).toMatch(/etat_administratif/);
    expect(await erreur('q=poste&code_postal=7501')).toMatch(/code_postal/);
    // Unknown parameters ignored; a repeated one counts once; hostile text answered, never a crash.
    expect((await s.search('q=552032534&inconnu=1&q=356000000')).body.results[0].siren).toBe('552032534');
    for (const q of ['q=%ff%fe%fd%fc', 'q=%00%00%00', 'q=%C0%AF%2e%2e', `q=${'a'.repeat(8000)}`, 'q=!!!'])
      expect([200, 400]).toContain((await s.search(q)).status);
    expect((await s.search('q=!!!')).body.total_results).toBe(0);
    const missing = await s.raw('/nulle-part');
    expect([missing.status, typeof missing.body.erreur]).toEqual([404, 'string']);
    const post = await s.raw('/search?q=poste', { method: 'POST', body: '{}' });
    expect([post.status, post.headers.get('allow'), typeof post.body.erreur]).toEqual([405, 'GET, HEAD', 'string']);
    expect((await s.raw('/near_point?lat=1&long=1')).status).toBe(501);
  });
});

/** A GET from a chosen local address (127.0.0.2 is another client on the loopback). */
function getFrom(url: string, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { localAddress }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      })
      .on('error', reject);
  });
}

describe('the limit per client address and injected faults', () => {
  it('answers 429 with Retry-After past 7 requests a second from one address, not the others', async () => {
    const s = await start();
    s.sim.seedCompany({ siren: '552032534', nom_raison_sociale: 'DANONE', dirigeants: [] });
    // Eight at once from 127.0.0.1: seven pass, the eighth waits.
    const burst = await Promise.all(Array.from({ length: 8 }, () => s.search('q=552032534')));
    expect(burst.map((a) => a.status).sort()).toEqual([...Array(7).fill(200), 429]);
    const over = burst.find((a) => a.status === 429)!;
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(over.body.erreur).toMatch(/7 requêtes par seconde/);
    expect(await getFrom(`${s.sim.url}/search?q=552032534`, '127.0.0.2')).toBe(200); // another address
    expect((await s.admin('GET', '/requests')).body).toEqual({ 200: 8, 429: 1 }); // the control is not limited
    await new Promise((r) => setTimeout(r, Number(over.headers.get('retry-after')) * 1000));
    expect((await s.search('q=552032534')).status).toBe(200);

    expect((await s.admin('PUT', '/settings', { rateLimitPerSecond: null })).body).toEqual({
      rateLimitPerSecond: null,
    });
    for (let i = 0; i < 20; i++) expect((await s.search('q=552032534')).status).toBe(200);
    s.sim.setRateLimit(2);
    expect((await s.admin('GET', '/settings')).body).toEqual({ rateLimitPerSecond: 2 });
    expect(s.sim.requests()).toEqual({ 200: 29, 429: 1 });
  });

  it('injects faults on the API only, answered as {erreur}', async () => {
    const s = await start({ rateLimitPerSecond: null, faults: { status: 503, retryAfterSeconds: 2, count: 1 } });
    const failed = await s.search('q=552032534');
    expect([failed.status, failed.headers.get('retry-after'), failed.body.erreur]).toEqual([
      503,
      '2',
      'panne simulée (503)',
    ]);
    expect((await s.search('q=552032534')).status).toBe(200);
    s.sim.setFaults({ errorRates: { 500: 1 }, detail: 'tout casse' });
    expect((await s.search('q=552032534')).body).toEqual({ erreur: 'tout casse' });
    expect((await s.admin('GET', '/requests')).status).toBe(200);
    expect(s.sim.faultsSeen()).toEqual({ 500: 1, 503: 1 });
    s.sim.setFaults(undefined);
  });
});

describe('the control and the state file', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recherche-sim-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps the register across restarts (journal, then snapshot)', async () => {
    const stateFile = path.join(dir, 'recherche-entreprises.json');
    const first = await start({ stateFile, rateLimitPerSecond: null });
    expect(
      (await first.admin('PUT', '/companies/552032534', { nom_raison_sociale: 'DANONE', dirigeants: [DUPONT] })).status,
    ).toBe(200);
    const bulk = await first.admin('POST', '/companies:bulk', [
      { siren: '356000000', nom_raison_sociale: 'LA POSTE', dirigeants: [AUDITOR] },
      { siren: '130025265', nom_raison_sociale: 'À RETIRER', dirigeants: [] },
    ]);
    expect([bulk.status, bulk.body]).toEqual([201, { companies: 2 }]);
    expect((await first.admin('DELETE', '/companies/130025265')).status).toBe(204);

    const second = await start({ stateFile, rateLimitPerSecond: null }); // reads the first one's journal as it stands
    expect((await second.search('q=552032534')).body.results[0].dirigeants[0].nom).toBe('Dupont');
    await first.sim.close();
    await second.sim.close();
    const third = await start({ stateFile, rateLimitPerSecond: null }); // from the snapshot written at close
    expect((await third.search('q=la%20poste')).body.results[0].dirigeants).toEqual([AUDITOR]);
    expect((await third.search('q=130025265')).body.total_results).toBe(0);
    expect((await third.admin('GET', '/companies/552032534')).body).toMatchObject({
      siren: '552032534',
      nom_raison_sociale: 'DANONE',
      diffusible: true,
    });
  });

  it('refuses bad control input with 400 naming the field, and nothing half-done', async () => {
    const s = await start({ rateLimitPerSecond: null });
    const refused = async (method: string, p: string, body: unknown, field: RegExp) => {
      const a = await s.admin(method, p, body);
      expect([a.status, a.body.erreur], JSON.stringify(body)).toEqual([400, expect.stringMatching(field)]);
    };
    await refused('PUT', '/companies/552032534', { dirigeants: [] }, /^nom_raison_sociale : /);
    await refused('PUT', '/companies/552032534', { nom_raison_sociale: 'X' }, /^dirigeants : /);
    await refused(
      'PUT',
      '/companies/552032534',
      { nom_raison_sociale: 'X', dirigeants: [{ nom: 'A' }] },
      /^dirigeants\[0\]/,
    );
    await refused(
      'PUT',
      '/companies/552032534',
      { nom_raison_sociale: 'X', dirigeants: [{ ...DUPONT, date_de_naissance: '1964-13' }] },
      /^dirigeants\[0\]\.date_de_naissance : /,
    );
    await refused(
      'PUT',
      '/companies/552032534',
      { nom_raison_sociale: 'X', dirigeants: [], etat_administratif: 'F' },
      /^etat_administratif/,
    );
    await refused(
      'PUT',
      '/companies/552032534',
      { nom_raison_sociale: 'X', dirigeants: [], couleur: 'bleu' },
      /couleur/,
    );
    await refused(
      'PUT',
      '/companies/552032534',
      { siren: '356000000', nom_raison_sociale: 'X', dirigeants: [] },
      /^siren/,
    );
    await refused('PUT', '/companies/55203253', { nom_raison_sociale: 'X', dirigeants: [] }, /SIREN/);
    await refused('PUT', '/companies/552032534', '{"nom_raison_sociale":', /JSON/);
    await refused('POST', '/companies:bulk', { siren: '552032534' }, /tableau/);
    await refused(
      'POST',
      '/companies:bulk',
      [
        { siren: '552032534', nom_raison_sociale: 'A', dirigeants: [] },
        { siren: '356000000', dirigeants: [] },
      ],
      /^\[1\] nom_raison_sociale/,
    );
    expect((await s.admin('GET', '/companies/552032534')).status).toBe(404); // the bulk kept nothing
    await refused('PUT', '/settings', { rateLimitPerSecond: 0 }, /rateLimitPerSecond/);
    await refused('PUT', '/settings', { rateLimit: 3 }, /rateLimit/);
    expect(() => s.sim.seedCompany({ siren: '1', nom_raison_sociale: 'X', dirigeants: [] })).toThrow(/siren/);

    const big = await s.admin('PUT', '/companies/552032534', 'x'.repeat(1_100_000));
    expect(big.status).toBe(413);
    expect((await s.admin('POST', '/companies/552032534', {})).status).toBe(405);
    expect((await s.admin('GET', '/inconnu')).status).toBe(404);
    expect((await s.admin('DELETE', '/companies/552032534')).status).toBe(404);
  });
});
