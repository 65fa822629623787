// The Annuaire simulator on the wire: what a PA's client would see from the real directory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { today } from '../../integrations/annuaire/types';
import { startAnnuaireSimulator, type AnnuaireSimulator } from '../../simulators/annuaire';
import { DEFAULT_SINCE } from '../../simulators/annuaire/store';
import { makeSiren } from '../../bin/stack/sample-parties';

const CREDS = { client_id: 'pa-dev', client_secret: 'pa-dev-secret', grant_type: 'client_credentials' };

async function tokenFor(sim: AnnuaireSimulator, form: Record<string, string> = CREDS) {
  return fetch(sim.tokenUrl, { method: 'POST', body: new URLSearchParams(form) });
}

function api(sim: AnnuaireSimulator, token: string | null) {
  return async (method: string, p: string, body?: unknown) => {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(sim.url + p, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return {
      status: res.status,
      type: res.headers.get('content-type') ?? '',
      body: text ? JSON.parse(text) : undefined,
    };
  };
}

const newLine = (siren: string, matricule: string, from = today()) => ({
  periodeEffet: { dateDebutEffet: from },
  informationAdressage: { siren, matriculePlateforme: matricule },
});
const bySiren = (siren: string, historisation?: object) => ({
  filtres: { siren: { op: 'strict', valeur: siren }, ...(historisation && { historisation }) },
});

describe('Annuaire simulator', () => {
  let sim: AnnuaireSimulator;
  let call: ReturnType<typeof api>;

  beforeAll(async () => {
    sim = await startAnnuaireSimulator({ host: '127.0.0.1', port: 0 });
    const { access_token } = (await (await tokenFor(sim)).json()) as { access_token: string };
    call = api(sim, access_token);
  });
  afterAll(() => sim.close());

  it('serves the spec base path and answers /health without a token', async () => {
    expect(sim.url).toMatch(/\/ppf\/annuaire-public\/v1$/);
    expect((await fetch(new URL('/health', sim.url))).status).toBe(200);
  });

  it('answers a company lookup by SIREN: the companies it knows from the start, seeded ones, 404 for the others', async () => {
    const danone = await call('GET', '/siren/code-insee:552032534');
    expect(danone.status).toBe(200);
    expect(danone.body).toMatchObject({ siren: '552032534', raisonSociale: 'DANONE', etatAdministratif: 'A' });
    const siren = makeSiren();
    expect((await call('GET', `/siren/code-insee:${siren}`)).status).toBe(404);
    sim.seedCompany({ siren, raisonSociale: 'FROMAGERIE DU VAL', etatAdministratif: 'C' });
    expect((await call('GET', `/siren/code-insee:${siren}`)).body).toMatchObject({
      raisonSociale: 'FROMAGERIE DU VAL',
      etatAdministratif: 'C',
    });
    expect((await call('GET', '/siren/code-insee:12345')).status).toBe(400);
  });

  it("learns a company through its control, outside the Annuaire's API, and refuses a malformed one", async () => {
    const control = (siren: string, body: string, method = 'PUT') =>
      fetch(new URL(`/_simulator/companies/${siren}`, sim.url), { method, body });
    const siren = makeSiren();
    const put = await control(siren, JSON.stringify({ raisonSociale: 'IMPRIMERIE DU PORT', etatAdministratif: 'C' }));
    expect(put.status).toBe(200);
    expect((await call('GET', `/siren/code-insee:${siren}`)).body).toMatchObject({
      raisonSociale: 'IMPRIMERIE DU PORT',
      etatAdministratif: 'C',
    });
    expect((await control('12345', '{"raisonSociale":"X"}')).status).toBe(400);
    expect((await control(siren, '{"raisonSociale":""}')).status).toBe(400);
    expect((await control(siren, '{"raisonSociale":"X","etatAdministratif":"F"}')).status).toBe(400);
    expect((await control(siren, 'not json')).status).toBe(400);
    expect((await control(siren, '', 'DELETE')).status).toBe(405);
  });

  it('issues tokens for known client credentials only', async () => {
    const bad = await tokenFor(sim, { ...CREDS, client_secret: 'wrong' });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ error: 'invalid_client' });
    const good = await tokenFor(sim);
    expect(await good.json()).toMatchObject({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
    });
  });

  it('refuses requests without a valid token with a French problem+json', async () => {
    for (const token of [null, 'not-a-token']) {
      const r = await api(sim, token)('POST', '/ligne-annuaire/recherche', bySiren(makeSiren()));
      expect(r.status).toBe(401);
      expect(r.type).toContain('application/problem+json');
      expect(r.body).toMatchObject({ titre: 'Non autorisé', statut: 401, detail: expect.stringContaining('jeton') });
    }
  });

  it('validates bodies against the official schemas: 400 with titre, statut, detail', async () => {
    const badSiren = await call('POST', '/ligne-annuaire', newLine('12345', '0145'));
    expect(badSiren.status).toBe(400);
    expect(badSiren.type).toContain('application/problem+json');
    expect(badSiren.body).toMatchObject({
      titre: 'Mauvaise requête',
      statut: 400,
      detail: expect.stringContaining('/informationAdressage/siren'),
    });

    const unknownMember = newLine(makeSiren(), '0145');
    (unknownMember.informationAdressage as Record<string, string>).raisonSociale = 'X';
    expect((await call('POST', '/ligne-annuaire', unknownMember)).body.detail).toContain('raisonSociale');
    const badDate = await call('PATCH', '/ligne-annuaire/id-instance:1', { dateFinEffet: '31/12/2026' });
    expect(badDate.status).toBe(400);
    const badOp = await call('POST', '/ligne-annuaire/recherche', {
      filtres: { siren: { op: 'egal', valeur: makeSiren() } },
    });
    expect(badOp.status).toBe(400);
    expect(badOp.body.detail).toContain('/filtres/siren/op');
  });

  it('shows a never-seen SIREN on the fictive platform 9998', async () => {
    const siren = makeSiren();
    const found = await call('POST', '/ligne-annuaire/recherche', bySiren(siren));
    expect(found.status).toBe(200);
    expect(found.body.nombre_total_resultats).toBe(1);
    expect(found.body.resultats[0]).toMatchObject({
      siren,
      identifiantAdressage: siren,
      matriculePlateforme: '9998',
      dateFinEffet: null,
    });
    const got = await call('GET', `/ligne-annuaire/code:${siren}`);
    expect(got.body).toMatchObject({
      matriculePlateforme: '9998',
      historisation: { idInstance: found.body.resultats[0].historisation.idInstance },
    });
  });

  it('refuses overlapping lines, accepts the switch, and keeps the history', async () => {
    const siren = makeSiren();
    const overlap = await call('POST', '/ligne-annuaire', newLine(siren, '0145'));
    expect(overlap.status).toBe(422);
    expect(overlap.body).toMatchObject({ statut: 422, detail: expect.stringContaining('chevauche') });

    const [old] = (await call('POST', '/ligne-annuaire/recherche', bySiren(siren))).body.resultats;
    const ended = await call('PATCH', `/ligne-annuaire/id-instance:${old.historisation.idInstance}`, {
      dateFinEffet: today(),
    });
    expect(ended.status).toBe(200);
    const created = await call('POST', '/ligne-annuaire', newLine(siren, '0145'));
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      idInstance: expect.any(Number),
      identifiantAdressage: siren,
      dateDebutEffet: today(),
    });

    // In force today: ours only; the whole history: both, the old one ended on the switch date.
    const now = (await call('POST', '/ligne-annuaire/recherche', bySiren(siren))).body.resultats;
    expect(now.map((l: { matriculePlateforme: string }) => l.matriculePlateforme)).toEqual(['0145']);
    const audit = (
      await call('POST', '/ligne-annuaire/recherche', bySiren(siren, { modeAudit: { op: 'strict', valeur: true } }))
    ).body.resultats;
    expect(audit).toEqual([
      expect.objectContaining({ matriculePlateforme: '9998', dateFinEffet: today() }),
      expect.objectContaining({ matriculePlateforme: '0145', dateFinEffet: null }),
    ]);
    const yesterday = today(new Date(Date.now() - 86_400_000));
    expect(
      (await call('GET', `/ligne-annuaire/code:${siren}?dateObservation=${yesterday}`)).body.matriculePlateforme,
    ).toBe('9998');
    expect(sim.lines().filter((l) => l.siren === siren)).toHaveLength(2);

    // A line cannot be moved to another platform in place, nor created in the past.
    const moved = await call('PATCH', `/ligne-annuaire/id-instance:${created.body.idInstance}`, {
      matriculePlateforme: '0042',
    });
    expect(moved.status).toBe(422);
    expect((await call('POST', '/ligne-annuaire', newLine(makeSiren(), '0145', '2020-01-01'))).status).toBe(422);
  });

  it('lets tests seed a line held by another PA (no default 9998 then)', async () => {
    const siren = makeSiren();
    const seeded = sim.seedLine({ siren, matriculePlateforme: '0042' });
    const r = await call('POST', '/ligne-annuaire/recherche', bySiren(siren));
    expect(r.body.resultats).toEqual([
      expect.objectContaining({
        matriculePlateforme: '0042',
        historisation: expect.objectContaining({ idInstance: seeded.idInstance }),
      }),
    ]);
  });

  it('finds an address among more lines in force than a search page holds', async () => {
    const sirens = Array.from({ length: 120 }, () => makeSiren());
    for (const siren of sirens) sim.seedLine({ siren, matriculePlateforme: '0145', dateDebutEffet: today() });
    const last = await call('GET', `/ligne-annuaire/code:${sirens.at(-1)}`);
    expect([last.status, last.body.matriculePlateforme]).toEqual([200, '0145']);
  });

  it('answers 204 when a search finds nothing and 404 for an unknown address', async () => {
    expect(
      (
        await call('POST', '/ligne-annuaire/recherche', {
          filtres: { matriculePlateforme: { op: 'strict', valeur: '0999' } },
        })
      ).status,
    ).toBe(204);
    expect((await call('GET', `/ligne-annuaire/code:${makeSiren()}_00000000000000`)).status).toBe(404);
  });

  it('injects faults and latency on demand', async () => {
    sim.setFaults({ status: 503 });
    const r = await call('POST', '/ligne-annuaire/recherche', bySiren(makeSiren()));
    expect(r).toMatchObject({ status: 503, body: { titre: 'Service indisponible', statut: 503 } });
    sim.setFaults({ rate: 0.5, status: 429 });
    const statuses = new Set<number>();
    for (let i = 0; i < 40; i++)
      statuses.add((await call('POST', '/ligne-annuaire/recherche', bySiren(makeSiren()))).status);
    expect([...statuses].sort()).toEqual([200, 429]);
    sim.setFaults({ latencyMs: 300 });
    const t0 = Date.now();
    expect((await call('POST', '/ligne-annuaire/recherche', bySiren(makeSiren()))).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    sim.setFaults(undefined);
  });
  it('injects faults by configuration: shares per status, Retry-After, bursts, chosen requests, held requests', async () => {
    const search = () => call('POST', '/ligne-annuaire/recherche', bySiren(makeSiren()));
    sim.setFaults({ errorRates: { 503: 0.3, 429: 0.3 } });
    const seen = new Map<number, number>();
    for (let i = 0; i < 60; i++) {
      const { status } = await search();
      seen.set(status, (seen.get(status) ?? 0) + 1);
    }
    expect([...seen.keys()].sort()).toEqual([200, 429, 503]);

    // 429 carries Retry-After (1 s unless told), and so does 503 when told; `detail` is what the problem says.
    const token = ((await (await tokenFor(sim)).json()) as { access_token: string }).access_token;
    const raw = () =>
      fetch(`${sim.url}/ligne-annuaire/code:${makeSiren()}`, { headers: { authorization: `Bearer ${token}` } });
    sim.setFaults({ status: 429 });
    expect((await raw()).headers.get('retry-after')).toBe('1');
    sim.setFaults({ status: 503, retryAfterSeconds: 5, detail: 'maintenance programmée' });
    const r503 = await raw();
    expect([r503.status, r503.headers.get('retry-after'), ((await r503.json()) as { detail: string }).detail]).toEqual([
      503,
      '5',
      'maintenance programmée',
    ]);

    // A burst: the next 2 matching requests fail, then the directory is back. Other requests are left alone.
    sim.setFaults({ status: 503, count: 2, only: 'POST /ligne-annuaire/recherche' });
    expect((await call('GET', `/ligne-annuaire/code:${makeSiren()}`)).status).toBe(200);
    expect([(await search()).status, (await search()).status, (await search()).status]).toEqual([503, 503, 200]);
    sim.setFaults({ status: 422, only: 'PATCH /ligne-annuaire/id-instance:*' });
    expect((await call('PATCH', '/ligne-annuaire/id-instance:1', { dateFinEffet: today() })).status).toBe(422);
    expect((await search()).status).toBe(200);
    sim.setFaults({ status: 503 });
    expect((await tokenFor(sim)).status).toBe(200); // the token endpoint only when named
    sim.setFaults({ status: 503, only: 'POST /oauth/token' });
    expect((await tokenFor(sim)).status).toBe(503);

    // Held: no answer at all until the connection is dropped.
    sim.setFaults({ timeoutRate: 1, timeoutMs: 300 });
    const t0 = Date.now();
    await expect(search()).rejects.toThrow();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(280);
    sim.setFaults(undefined);
    expect((await search()).status).toBe(200);

    // Timed out after the work: the create is carried out, its answer never comes; the line is there all the same.
    const siren = makeSiren();
    const [fictive] = (await call('POST', '/ligne-annuaire/recherche', bySiren(siren))).body.resultats; // ended by ours
    await call('PATCH', `/ligne-annuaire/id-instance:${fictive.historisation.idInstance}`, { dateFinEffet: today() });
    sim.setFaults({ timeoutAfterWorkRate: 1, timeoutMs: 300, only: 'POST /ligne-annuaire' });
    const t1 = Date.now();
    await expect(call('POST', '/ligne-annuaire', newLine(siren, '0145'))).rejects.toThrow();
    expect(Date.now() - t1).toBeGreaterThanOrEqual(280);
    expect(sim.lines().filter((l) => l.siren === siren && l.matriculePlateforme === '0145')).toHaveLength(1);
    expect(sim.faultsSeen()['timeout after work']).toBe(1);
    sim.setFaults(undefined);
  });

  describe('masking', () => {
    const inDays = (n: number) => today(new Date(Date.now() + n * 86_400_000));
    type Found = { matriculePlateforme: string; historisation: { idInstance: number; masque: boolean } };
    const found = async (body: object): Promise<Found[]> => {
      const r = await call('POST', '/ligne-annuaire/recherche', body);
      return r.status === 204 ? [] : (r.body.resultats as Found[]);
    };
    const platforms = (lines: Found[]) => lines.map((l) => l.matriculePlateforme);
    const mask = (id: number) => call('DELETE', `/ligne-annuaire/id-instance:${id}`);
    const expectRefusal = (r: Awaited<ReturnType<typeof call>>, statut: number, titre: string, detail: string) => {
      expect(r.status).toBe(statut);
      expect(r.type).toContain('application/problem+json');
      expect(r.body).toMatchObject({ titre, statut, detail: expect.stringContaining(detail) });
    };

    it("cancels another platform's future line: the address is free again over its period, the line stays in the history", async () => {
      // 9998 until the switch day, then another PA's line, which we cancel to take the address from that day on.
      const siren = makeSiren();
      const switchDay = inDays(10);
      const [fictive] = await found(bySiren(siren));
      expect(
        (
          await call('PATCH', `/ligne-annuaire/id-instance:${fictive!.historisation.idInstance}`, {
            dateFinEffet: switchDay,
          })
        ).status,
      ).toBe(200);
      const theirs = sim.seedLine({ siren, matriculePlateforme: '0042', dateDebutEffet: switchDay });
      const overlap = await call('POST', '/ligne-annuaire', newLine(siren, '0145', switchDay));
      expectRefusal(overlap, 422, 'Erreur de validation des données', `chevauche la ligne ${theirs.idInstance}`);

      const masked = await mask(theirs.idInstance);
      expect([masked.status, masked.body]).toEqual([204, undefined]);
      expect(sim.lines().find((l) => l.idInstance === theirs.idInstance)).toMatchObject({
        masque: true,
        dateDebutEffet: switchDay,
        dateFinEffet: null,
      });
      const ours = await call('POST', '/ligne-annuaire', newLine(siren, '0145', switchDay));
      expect(ours.status).toBe(201);

      // Never in force: not on its own start day, not over a period, not today.
      const on = (day: string) => bySiren(siren, { dateObservation: { op: 'strict', valeur: day } });
      expect(platforms(await found(on(switchDay)))).toEqual(['0145']);
      expect(platforms(await found(on(inDays(40))))).toEqual(['0145']);
      expect(
        platforms(
          await found(
            bySiren(siren, {
              dateDebutRecherche: { op: 'strict', valeur: today() },
              dateFinRecherche: { op: 'strict', valeur: inDays(30) },
            }),
          ),
        ),
      ).toEqual(['9998', '0145']);
      expect(platforms(await found(bySiren(siren)))).toEqual(['9998']);
      const atSwitch = await call('GET', `/ligne-annuaire/code:${siren}?dateObservation=${switchDay}`);
      expect([atSwitch.status, atSwitch.body.matriculePlateforme]).toEqual([200, '0145']);

      // Only an audit of the whole history, or a read by its idInstance, shows it, marked.
      const audit = await found(bySiren(siren, { modeAudit: { op: 'strict', valeur: true } }));
      expect(audit).toEqual([
        expect.objectContaining({
          matriculePlateforme: '9998',
          historisation: expect.objectContaining({ masque: false }),
        }),
        expect.objectContaining({
          matriculePlateforme: '0042',
          dateFinEffet: null,
          historisation: expect.objectContaining({
            idInstance: theirs.idInstance,
            masque: true,
            dateDebutEffet: switchDay,
          }),
        }),
        expect.objectContaining({
          matriculePlateforme: '0145',
          historisation: expect.objectContaining({ masque: false }),
        }),
      ]);
      const byId = await call('GET', `/ligne-annuaire/id-instance:${theirs.idInstance}`);
      expect(byId.status).toBe(200);
      expect(byId.body).toMatchObject({
        siren,
        matriculePlateforme: '0042',
        historisation: { idInstance: theirs.idInstance, masque: true, dateDebutEffet: switchDay },
      });
    });

    it('masking a masked line again answers 204 and changes nothing; a masked line cannot be ended', async () => {
      const siren = makeSiren();
      const created = await call('POST', '/ligne-annuaire', {
        periodeEffet: { dateDebutEffet: inDays(5) },
        informationAdressage: { siren, siret: `${siren}00012`, matriculePlateforme: '0145' },
      });
      expect(created.status).toBe(201);
      const id = created.body.idInstance as number;
      expect((await mask(id)).status).toBe(204);
      const once = sim.lines().find((l) => l.idInstance === id);
      expect(once).toMatchObject({ masque: true });

      const again = await mask(id);
      expect([again.status, again.body]).toEqual([204, undefined]);
      expect(sim.lines().find((l) => l.idInstance === id)).toEqual(once);

      const ended = await call('PATCH', `/ligne-annuaire/id-instance:${id}`, { dateFinEffet: inDays(20) });
      expectRefusal(ended, 422, 'Erreur de validation des données', 'masquée');
      expect(sim.lines().find((l) => l.idInstance === id)).toEqual(once);
      expect((await call('GET', `/ligne-annuaire/id-instance:${id}`)).body).toMatchObject({
        dateFinEffet: null,
        historisation: { masque: true },
      });
    });

    it('refuses to mask a line in force (from today or before) or past, saying to end it instead; 404 for an unknown one', async () => {
      const siren = makeSiren();
      const [fictive] = await found(bySiren(siren));
      const fromToday = await call('POST', '/ligne-annuaire', {
        periodeEffet: { dateDebutEffet: today() },
        informationAdressage: { siren, siret: `${siren}00012`, matriculePlateforme: '0145' },
      });
      expect(fromToday.status).toBe(201);
      const past = sim.seedLine({
        siren,
        siret: `${siren}00027`,
        matriculePlateforme: '0042',
        dateDebutEffet: DEFAULT_SINCE,
        dateFinEffet: '2025-01-01',
      });

      const refusals: [number, string][] = [
        [fictive!.historisation.idInstance, 'clôturez-la (dateFinEffet)'],
        [fromToday.body.idInstance as number, 'clôturez-la (dateFinEffet)'],
        [past.idInstance, "close depuis le 2025-01-01 : l'historique n'est pas modifiable"],
      ];
      for (const [id, why] of refusals) {
        const before = sim.lines().find((l) => l.idInstance === id);
        expectRefusal(await mask(id), 422, 'Erreur de validation des données', why);
        expect(sim.lines().find((l) => l.idInstance === id)).toEqual(before);
        expect(before?.masque).toBeUndefined();
      }
      // Still in force, and in the way.
      expect(platforms(await found(bySiren(siren))).sort()).toEqual(['0145', '9998']);
      expectRefusal(
        await call('POST', '/ligne-annuaire', newLine(siren, '0145')),
        422,
        'Erreur de validation des données',
        'chevauche',
      );

      const maxId = Math.max(...sim.lines().map((l) => l.idInstance));
      expectRefusal(await mask(maxId + 1_000_000), 404, 'Non trouvée', `idInstance ${maxId + 1_000_000}`);
    });
  });
});

describe('Annuaire simulator state', () => {
  it('persists lines to its state file and reloads them at start', async () => {
    const stateFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'annuaire-')), 'state.json');
    const siren = makeSiren();
    const first = await startAnnuaireSimulator({ host: '127.0.0.1', port: 0, stateFile });
    const seeded = first.seedLine({ siren, matriculePlateforme: '0042' });
    const token = ((await (await tokenFor(first)).json()) as { access_token: string }).access_token;
    expect(
      (await api(first, token)('PATCH', `/ligne-annuaire/id-instance:${seeded.idInstance}`, { dateFinEffet: today() }))
        .status,
    ).toBe(200);
    await first.close();

    const second = await startAnnuaireSimulator({ host: '127.0.0.1', port: 0, stateFile });
    try {
      expect(second.lines()).toEqual([
        expect.objectContaining({ siren, matriculePlateforme: '0042', dateFinEffet: today() }),
      ]);
      expect((await api(second, token)('GET', `/ligne-annuaire/id-instance:${seeded.idInstance}`)).status).toBe(401); // tokens are not kept
      const fresh = ((await (await tokenFor(second)).json()) as { access_token: string }).access_token;
      const next = second.seedLine({ siren: makeSiren(), matriculePlateforme: '0145' });
      expect(next.idInstance).toBeGreaterThan(seeded.idInstance); // ids are never reused
      expect((await api(second, fresh)('GET', `/ligne-annuaire/id-instance:${seeded.idInstance}`)).body).toMatchObject({
        matriculePlateforme: '0042',
      });
    } finally {
      await second.close();
    }
  });

  it('refuses to start without the official OpenAPI file, naming it', async () => {
    await expect(
      startAnnuaireSimulator({ host: '127.0.0.1', port: 0, specFile: '/nonexistent/annuaire.json' }),
    ).rejects.toThrow(/OpenAPI file is missing \(\/nonexistent\/annuaire\.json\)/);
  });
});
