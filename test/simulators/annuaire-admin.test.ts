// The Annuaire simulator's control (/_simulator, simulators/annuaire/ADMIN.md) on the wire, as a trial's owner uses it:
// its day, the other platforms and the PPF it plays, bulk seeds, next-day visibility, restarts from snapshot and
// journal, the rate limit, and a platform's 100,000 lines paged through. Over 300 lines: one scenario per control.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnnuaireSimulator, type AnnuaireSimulator } from '../../simulators/annuaire';
import { makeSiren } from '../../bin/stack/sample-parties';

type Answer = { status: number; body: any; headers: Headers };
const CREDS = { client_id: 'pa-dev', client_secret: 'pa-dev-secret', grant_type: 'client_credentials' };
const sims: AnnuaireSimulator[] = [];
afterAll(() => Promise.all(sims.map((s) => s.close())));

async function start(o: Partial<Parameters<typeof startAnnuaireSimulator>[0]> = {}) {
  const sim = await startAnnuaireSimulator({ host: '127.0.0.1', port: 0, ...o });
  sims.push(sim);
  const token = (
    (await (await fetch(sim.tokenUrl, { method: 'POST', body: new URLSearchParams(CREDS) })).json()) as {
      access_token: string;
    }
  ).access_token;
  const request = async (url: string, method: string, body?: unknown, headers: Record<string, string> = {}) => {
    const init = { method, headers, body: typeof body === 'string' ? body : JSON.stringify(body) };
    const res = await fetch(url, body === undefined ? { method, headers } : init);
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers } as Answer;
  };
  const origin = new URL(sim.url).origin;
  return {
    sim,
    /** The control: no token. */
    admin: (method: string, p: string, body?: unknown) => request(`${origin}/_simulator${p}`, method, body),
    /** The Annuaire's API, as our service calls it. */
    api: (method: string, p: string, body?: unknown) =>
      request(sim.url + p, method, body, { authorization: `Bearer ${token}`, 'content-type': 'application/json' }),
  };
}
type Sim = Awaited<ReturnType<typeof start>>;

const D = '2031-03-02'; // the simulator's day in these tests
const bySiren = (siren: string, historisation?: object) => ({
  filtres: { siren: { op: 'strict', valeur: siren }, ...(historisation && { historisation }) },
});
const on = (s: Sim, id: string, day: string) => s.api('GET', `/ligne-annuaire/code:${id}?dateObservation=${day}`);
const platformOf = async (s: Sim, id: string, day: string) => (await on(s, id, day)).body?.matriculePlateforme;

describe('the simulator acting as the other actors', () => {
  let s: Sim;
  beforeAll(async () => {
    s = await start({ day: D });
  });

  it('counts in the day it is given: "in force", the past, back to the real date', async () => {
    expect((await s.admin('GET', '/day')).body).toMatchObject({ day: D, fixed: true });
    const siren = makeSiren();
    s.sim.seedLine({ siren, matriculePlateforme: '0042', dateDebutEffet: '2031-03-01' });
    expect((await s.api('POST', '/ligne-annuaire/recherche', bySiren(siren))).status).toBe(200);
    const past = await s.api('POST', '/ligne-annuaire', {
      periodeEffet: { dateDebutEffet: '2031-03-01' },
      informationAdressage: { siren: makeSiren(), matriculePlateforme: '0145' },
    });
    expect([past.status, past.body.detail]).toEqual([422, expect.stringContaining('au plus tôt 2031-03-02')]);

    expect((await s.admin('PUT', '/day', { day: '2031-02-27' })).body.day).toBe('2031-02-27');
    expect((await s.api('POST', '/ligne-annuaire/recherche', bySiren(siren))).status).toBe(204); // not yet in force
    const real = await s.admin('PUT', '/day', { day: null });
    expect(real.body).toMatchObject({ fixed: false, day: new Date().toISOString().slice(0, 10) });
    s.sim.setDay(D);
    expect(s.sim.today()).toBe(D);
  });

  it('takes an address over as another platform: the old line ends on the day, the new one starts on it', async () => {
    const siren = makeSiren();
    const ours = s.sim.seedLine({ siren, matriculePlateforme: '0145', dateFinEffet: '2031-06-01' });
    const third = s.sim.seedLine({ siren, matriculePlateforme: '0077', dateDebutEffet: '2031-06-01' });
    const line = { siren, matriculePlateforme: '0099', dateDebutEffet: '2031-03-10' };
    const refused = await s.admin('POST', '/lines', line);
    expect([refused.status, refused.body.detail]).toEqual([422, expect.stringContaining('chevauche')]);

    const taken = await s.admin('POST', '/lines', { ...line, takeOver: true });
    expect(taken.status).toBe(201);
    expect(taken.body).toMatchObject({
      matriculePlateforme: '0099',
      identifiantAdressage: siren,
      dateFinEffet: null,
      historisation: { dateDebutEffet: '2031-03-10', creePar: 'platform:0099', masque: false },
    });
    expect(await platformOf(s, siren, '2031-03-09')).toBe('0145');
    expect(await platformOf(s, siren, '2031-03-10')).toBe('0099');
    expect(await platformOf(s, siren, '2031-07-01')).toBe('0099');
    const old = (await s.api('GET', `/ligne-annuaire/id-instance:${ours.idInstance}`)).body;
    expect(old.dateFinEffet).toBe('2031-03-10');
    expect((await s.api('GET', `/ligne-annuaire/id-instance:${third.idInstance}`)).body.historisation.masque).toBe(
      true,
    );
    const author = s.sim.lines().find((l) => l.idInstance === ours.idInstance)!.modifications;
    expect(author).toEqual([expect.objectContaining({ par: 'platform:0099', dateFinEffet: '2031-03-10' })]);

    // A line of the acting platform itself stays in the way: refused, nothing changed.
    const before = s.sim.lines();
    const again = await s.admin('POST', '/lines', { ...line, dateDebutEffet: '2031-04-01', takeOver: true });
    expect([again.status, again.body.detail]).toEqual([422, expect.stringContaining('plateforme 0099')]);
    expect(s.sim.lines()).toEqual(before);
  });

  it("ends and masks a line as its platform, under the directory's rules", async () => {
    const siren = makeSiren();
    const now = s.sim.seedLine({ siren, matriculePlateforme: '0042', dateDebutEffet: '2031-01-01' });
    const later = s.sim.seedLine({
      siren,
      siret: `${siren}00012`,
      matriculePlateforme: '0042',
      dateDebutEffet: '2031-05-01',
    });
    const ended = await s.admin('PATCH', `/lines/${now.idInstance}`, { dateFinEffet: '2031-04-01' });
    expect([ended.status, ended.body.dateFinEffet]).toEqual([200, '2031-04-01']);
    expect((await s.admin('PATCH', `/lines/${now.idInstance}`, { dateFinEffet: null })).body.dateFinEffet).toBeNull();
    expect((await s.admin('DELETE', `/lines/${now.idInstance}`)).status).toBe(422); // in force: end it instead
    const masked = await s.admin('DELETE', `/lines/${later.idInstance}`);
    expect([masked.status, masked.body.historisation.masque]).toEqual([200, true]);
    expect(s.sim.lines().find((l) => l.idInstance === later.idInstance)!.modifications[0]!.par).toBe('platform:0042');
    expect((await s.admin('PATCH', '/lines/999999999', { dateFinEffet: null })).status).toBe(404);
  });

  it('ceases a company as the PPF: lines in force end on the day, later ones are masked, the company reads ceased', async () => {
    const siren = makeSiren();
    s.sim.seedCompany({ siren, raisonSociale: 'BOULANGERIE DU PONT' });
    const past = s.sim.seedLine({ siren, matriculePlateforme: '0042', dateFinEffet: '2030-01-01' });
    const now = s.sim.seedLine({ siren, matriculePlateforme: '0145', dateDebutEffet: '2030-01-01' });
    const later = s.sim.seedLine({
      siren,
      siret: `${siren}00012`,
      matriculePlateforme: '0145',
      dateDebutEffet: '2031-05-01',
    });
    const r = await s.admin('POST', `/companies/${siren}/cessation`, {});
    expect(r.status).toBe(200);
    expect(r.body.uniteLegale).toMatchObject({ raisonSociale: 'BOULANGERIE DU PONT', etatAdministratif: 'C' });
    expect(r.body.ended.map((l: any) => [l.historisation.idInstance, l.dateFinEffet])).toEqual([[now.idInstance, D]]);
    expect(r.body.masked.map((l: any) => l.historisation.idInstance)).toEqual([later.idInstance]);
    expect((await s.api('GET', `/siren/code-insee:${siren}`)).body.etatAdministratif).toBe('C');
    expect((await s.api('POST', '/ligne-annuaire/recherche', bySiren(siren))).status).toBe(204);
    const kept = s.sim.lines().find((l) => l.idInstance === past.idInstance)!;
    expect([kept.dateFinEffet, kept.modifications]).toEqual(['2030-01-01', []]);
    expect(s.sim.lines().find((l) => l.idInstance === now.idInstance)!.modifications[0]!.par).toBe('PPF');

    // A SIREN never seen: a placeholder company, its default 9998 line ended, none appearing later.
    const unknown = makeSiren();
    const u = await s.admin('POST', `/companies/${unknown}/cessation`, { day: '2031-04-01' });
    expect(u.body.uniteLegale).toMatchObject({ siren: unknown, raisonSociale: expect.stringContaining(unknown) });
    expect(u.body.ended).toEqual([
      expect.objectContaining({ matriculePlateforme: '9998', dateFinEffet: '2031-04-01' }),
    ]);
    expect(await platformOf(s, unknown, '2031-03-31')).toBe('9998');
    expect((await on(s, unknown, '2031-04-01')).status).toBe(404);
  });

  it('seeds in bulk (JSON array or NDJSON), checked before anything is written', async () => {
    const [a, b] = [makeSiren(), makeSiren()];
    const ndjson = [
      { siren: a, matriculePlateforme: '0042' },
      { siren: b, matriculePlateforme: '0145' },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n');
    const r = await s.admin('POST', '/lines:bulk', ndjson);
    expect([r.status, r.body.created, r.body.lastIdInstance - r.body.firstIdInstance]).toEqual([201, 2, 1]);
    const companies = await s.admin('POST', '/companies:bulk', [{ siren: a, raisonSociale: 'A SARL' }]);
    expect([companies.status, (await s.api('GET', `/siren/code-insee:${a}`)).body.raisonSociale]).toEqual([
      201,
      'A SARL',
    ]);

    const count = s.sim.lines().length;
    const c = makeSiren();
    const overlap = await s.admin('POST', '/lines:bulk', [
      { siren: c, matriculePlateforme: '0042' },
      { siren: c, matriculePlateforme: '0145', dateDebutEffet: '2031-01-01' },
    ]);
    expect([overlap.status, overlap.body.detail]).toEqual([422, expect.stringMatching(/^\[1\] .*chevauche.*\[0\]/)]);
    const onExisting = await s.admin('POST', '/lines:bulk', [{ siren: a, matriculePlateforme: '0077' }]);
    expect([onExisting.status, onExisting.body.detail]).toEqual([
      422,
      expect.stringContaining('[0] la période chevauche'),
    ]);
    expect(s.sim.lines()).toHaveLength(count);
  });

  it('refuses bad control input with 400 saying why', async () => {
    const siren = makeSiren();
    const cases: [string, string, unknown, string][] = [
      ['POST', '/lines', { matriculePlateforme: '0099', dateDebutEffet: D }, '« siren » absente'],
      ['POST', '/lines', { siren, matriculePlateforme: '99', dateDebutEffet: D }, 'matriculePlateforme : 4 chiffres'],
      ['POST', '/lines', { siren, matriculePlateforme: '0099', dateDebutEffet: '2031-02-30' }, 'dateDebutEffet'],
      ['POST', '/lines', { siren, matriculePlateforme: '0099', dateDebutEffet: D, takeOver: 'yes' }, 'takeOver'],
      [
        'POST',
        '/lines',
        { siren, matriculePlateforme: '0099', dateDebutEffet: D, nom: 'x' },
        'propriété inconnue « nom »',
      ],
      ['POST', '/lines', 'not json', 'corps JSON attendu'],
      ['PATCH', '/lines/abc', { dateFinEffet: null }, 'idInstance'],
      ['PATCH', '/lines/1', {}, '« dateFinEffet » absente'],
      ['POST', '/lines:bulk', [{ siren, matriculePlateforme: '0042' }, { siren: '123' }], '[1] '],
      ['POST', '/lines:bulk', [{ siren, siret: '11111111100012', matriculePlateforme: '0042' }], "n'est pas un SIRET"],
      ['POST', '/lines:bulk', '{"siren": 1', 'ligne 1 : JSON mal formé'],
      ['PUT', '/day', { day: 'tomorrow' }, 'day : une date AAAA-MM-JJ ou null'],
      ['PUT', '/day', {}, '« day » absente'],
      ['PUT', '/settings', { changesVisibleNextDay: 'on' }, 'changesVisibleNextDay : true ou false'],
      ['PUT', '/settings', { rateLimitPerSecond: -1 }, 'rateLimitPerSecond'],
      ['POST', `/companies/${siren}/cessation`, { day: '2031-03-01' }, 'est passé'],
      ['POST', '/companies/12345/cessation', {}, 'un SIREN a 9 chiffres'],
    ];
    for (const [method, p, body, why] of cases) {
      const r = await s.admin(method, p, body);
      expect([method, p, r.status, r.headers.get('content-type'), r.body.detail]).toEqual([
        method,
        p,
        400,
        expect.stringContaining('application/problem+json'),
        expect.stringContaining(why),
      ]);
    }
    expect((await s.admin('DELETE', '/day')).status).toBe(405);
    expect((await s.admin('GET', '/nothing')).status).toBe(404);
  });
});

describe('next-day visibility', () => {
  it('shows a change written on day D from D+1 on; seeds and the PPF at once; the rules see the truth', async () => {
    const s = await start({ day: D, changesVisibleNextDay: true });
    const siren = makeSiren();
    const [fictive] = (await s.api('POST', '/ligne-annuaire/recherche', bySiren(siren))).body.resultats;
    const fictiveId = fictive.historisation.idInstance;
    const next = '2031-03-03';
    expect((await s.api('PATCH', `/ligne-annuaire/id-instance:${fictiveId}`, { dateFinEffet: next })).status).toBe(200);
    const created = await s.api('POST', '/ligne-annuaire', {
      periodeEffet: { dateDebutEffet: next },
      informationAdressage: { siren, matriculePlateforme: '0145' },
    });
    expect(created.status).toBe(201);
    const id = created.body.idInstance;
    const seeded = s.sim.seedLine({ siren, siret: `${siren}00012`, matriculePlateforme: '0042' });

    // Day D: the end and the new line are not seen yet; the seed is; the rules count the new line all the same.
    expect(await platformOf(s, siren, next)).toBe('9998');
    expect((await s.api('GET', `/ligne-annuaire/id-instance:${fictiveId}`)).body.dateFinEffet).toBeNull();
    expect((await s.api('GET', `/ligne-annuaire/id-instance:${id}`)).status).toBe(404);
    expect((await s.api('GET', `/ligne-annuaire/id-instance:${seeded.idInstance}`)).status).toBe(200);
    const audit = bySiren(siren, { modeAudit: { op: 'strict', valeur: true } });
    expect((await s.api('POST', '/ligne-annuaire/recherche', audit)).body.nombre_total_resultats).toBe(2);
    const clash = await s.admin('POST', '/lines', { siren, matriculePlateforme: '0099', dateDebutEffet: '2031-04-01' });
    expect([clash.status, clash.body.detail]).toEqual([422, expect.stringContaining(`ligne ${id}`)]);

    expect((await s.admin('PUT', '/day', { day: next })).status).toBe(200);
    expect(await platformOf(s, siren, next)).toBe('0145');
    expect((await s.api('GET', `/ligne-annuaire/id-instance:${fictiveId}`)).body.dateFinEffet).toBe(next);
    expect((await s.api('POST', '/ligne-annuaire/recherche', audit)).body.nombre_total_resultats).toBe(3);

    // The PPF's cessation is seen at once, on its day.
    await s.admin('POST', `/companies/${siren}/cessation`, {});
    expect((await s.api('GET', `/ligne-annuaire/id-instance:${id}`)).body.dateFinEffet).toBe(next);
    expect((await s.admin('PUT', '/settings', { changesVisibleNextDay: false })).body.changesVisibleNextDay).toBe(
      false,
    );
  });
});

describe('persistence: snapshot and journal', () => {
  const dirOf = () => fs.mkdtempSync(path.join(os.tmpdir(), 'annuaire-admin-'));

  it('restarts from what a crash leaves (snapshot, journal, a torn last record) with everything kept', async () => {
    const dir = dirOf();
    const stateFile = path.join(dir, 'annuaire.json');
    const s = await start({ stateFile, day: D, changesVisibleNextDay: true });
    const seeds = Array.from({ length: 200 }, () => ({ siren: makeSiren(), matriculePlateforme: '0042' }));
    expect((await s.admin('POST', '/lines:bulk', seeds)).status).toBe(201);
    const snapshotSize = fs.statSync(stateFile).size;
    const siren = seeds[0]!.siren;
    await s.admin('PUT', '/day', { day: '2031-03-04' });
    await s.admin('POST', '/lines', {
      siren,
      matriculePlateforme: '0099',
      dateDebutEffet: '2031-03-05',
      takeOver: true,
    });
    await s.admin('POST', `/companies/${seeds[1]!.siren}/cessation`, {});
    expect(fs.statSync(stateFile).size).toBe(snapshotSize); // not rewritten by these changes
    expect(fs.statSync(`${stateFile}.journal`).size).toBeGreaterThan(0);

    // What is on disk, as a crash leaves it: copied while the simulator still runs, half a record at the end.
    const copy = path.join(dirOf(), 'annuaire.json');
    fs.copyFileSync(stateFile, copy);
    fs.copyFileSync(`${stateFile}.journal`, `${copy}.journal`);
    fs.appendFileSync(`${copy}.journal`, '{"t":"line","v":{"idInstance":9');
    const again = await start({ stateFile: copy });
    expect(again.sim.lines()).toEqual(s.sim.lines());
    expect(again.sim.today()).toBe('2031-03-04');
    expect(await platformOf(again, siren, '2031-03-05')).toBe('0042'); // the day kept, the take-over not seen yet
    expect((await again.api('GET', `/siren/code-insee:${seeds[1]!.siren}`)).body.etatAdministratif).toBe('C');
    again.sim.setDay('2031-03-05');
    expect(await platformOf(again, siren, '2031-03-05')).toBe('0099');

    // The torn tail was cut: later records append on lines of their own.
    const added = again.sim.seedLine({ siren: makeSiren(), matriculePlateforme: '0145' });
    await again.sim.close();
    const third = await start({ stateFile: copy });
    expect(third.sim.lines().at(-1)).toEqual(added);
    expect(fs.statSync(`${copy}.journal`).size).toBe(0); // a clean stop leaves the state in one file
  });

  it('loads a state file of the older format (one indented JSON document, no journal)', async () => {
    const stateFile = path.join(dirOf(), 'annuaire.json');
    const siren = makeSiren();
    const line = {
      idInstance: 41,
      identifiantAdressage: siren,
      siren,
      matriculePlateforme: '0042',
      dateDebutEffet: '2025-01-01',
      dateFinEffet: null,
      dateDefinition: '2025-01-01T00:00:00.000Z',
      creePar: 'seed',
      modifications: [],
    };
    fs.writeFileSync(stateFile, JSON.stringify({ nextId: 42, lines: [line], routingCodes: [] }, null, 2));
    const s = await start({ stateFile });
    expect(s.sim.lines()).toEqual([line]);
    expect(await platformOf(s, siren, '2026-01-01')).toBe('0042');
    expect(s.sim.seedLine({ siren: makeSiren(), matriculePlateforme: '0145' }).idInstance).toBe(42);
  });
});

describe('rate limit', () => {
  it('answers 429 with Retry-After over the limit; the token endpoint and the control are not counted', async () => {
    const s = await start({ rateLimitPerSecond: 2 });
    const search = () => s.api('POST', '/ligne-annuaire/recherche', bySiren(makeSiren()));
    const answers = await Promise.all(Array.from({ length: 6 }, search));
    const limited = answers.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(3);
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited[0]!.headers.get('content-type')).toContain('application/problem+json');
    expect(limited[0]!.body).toMatchObject({ statut: 429, titre: 'Trop de requêtes' });
    const tokens = await Promise.all(
      Array.from({ length: 4 }, () => fetch(s.sim.tokenUrl, { method: 'POST', body: new URLSearchParams(CREDS) })),
    );
    expect(tokens.map((t) => t.status)).toEqual([200, 200, 200, 200]);
    expect((await s.admin('GET', '/settings')).body.rateLimitPerSecond).toBe(2);
    expect((await s.admin('PUT', '/settings', { rateLimitPerSecond: null })).status).toBe(200);
    expect((await Promise.all(Array.from({ length: 6 }, search))).map((a) => a.status)).not.toContain(429);
  });
});

describe('scale', () => {
  it("pages through one platform's 60,000 lines among 100,000, each seen exactly once", async () => {
    const s = await start({
      stateFile: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'annuaire-scale-')), 's.json'),
    });
    const platform = (i: number) => (i % 5 < 3 ? '0145' : i % 5 === 3 ? '0042' : '0077');
    const seeds = Array.from({ length: 100_000 }, (_, i) => ({
      siren: String(300_000_000 + i),
      matriculePlateforme: platform(i),
      dateDebutEffet: '2025-01-01',
    }));
    const bulk = await s.admin('POST', '/lines:bulk', seeds);
    expect([bulk.status, bulk.body.created]).toEqual([201, 100_000]);

    const mine = { filtres: { matriculePlateforme: { op: 'strict', valeur: '0145' } }, limite: 100 };
    const seen = new Set<number>();
    let answer: Answer;
    do {
      answer = await s.api('POST', '/ligne-annuaire/recherche', { ...mine, ignorer: seen.size });
      expect(answer.body.nombre_total_resultats).toBe(60_000);
      for (const l of answer.body.resultats) {
        expect(l.matriculePlateforme).toBe('0145');
        seen.add(l.historisation.idInstance);
      }
    } while (answer.status === 206);
    expect(seen.size).toBe(60_000);
    const last = await s.api('POST', '/ligne-annuaire/recherche', {
      ...mine,
      tris: [{ champ: 'idInstance', ordre: 'descendant' }],
      limite: 2,
    });
    expect(last.body.resultats.map((l: any) => l.historisation.idInstance)).toEqual([99_998, 99_997]);

    // A change to one of them is seen by the next page (what the pages share is kept only while nothing changes).
    const today = s.sim.today();
    expect((await s.admin('PATCH', '/lines/1', { dateFinEffet: today })).status).toBe(200);
    const after = await s.api('POST', '/ligne-annuaire/recherche', { ...mine, ignorer: 59_900 });
    expect(after.body.nombre_total_resultats).toBe(59_999);
  });
});
