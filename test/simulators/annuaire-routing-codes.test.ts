// The Annuaire simulator's routing codes (code-routage) on the wire: create, read, search, the rule that a
// SIREN_SIRET_ROUTAGE line needs an existing open code, faults, persistence. Answers are checked against the
// response schemas of the official OpenAPI file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { today } from '../../integrations/annuaire/types';
import { startAnnuaireSimulator, type AnnuaireSimulator } from '../../simulators/annuaire';
import { ANNUAIRE_SPEC_FILE, openApiToJsonSchema } from '../../simulators/annuaire/spec';
import { makeSiren } from '../../bin/stack/sample-parties';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ $id: 'ppf', ...openApiToJsonSchema(JSON.parse(fs.readFileSync(ANNUAIRE_SPEC_FILE, 'utf8'))) });
/** Errors of `body` against a schema of the spec's components; [] when it conforms. */
function against(schema: string, body: unknown): string[] {
  const v: ValidateFunction = ajv.getSchema(`ppf#/components/schemas/${schema}`)!;
  return v(body) ? [] : (v.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}

const CREDS = { client_id: 'pa-dev', client_secret: 'pa-dev-secret', grant_type: 'client_credentials' };
async function tokenOf(sim: AnnuaireSimulator) {
  const res = await fetch(sim.tokenUrl, { method: 'POST', body: new URLSearchParams(CREDS) });
  return ((await res.json()) as { access_token: string }).access_token;
}
function api(sim: AnnuaireSimulator, token: string) {
  return async (method: string, p: string, body?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
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

const makeSiret = (siren = makeSiren()) => `${siren}00012`;
const newCode = <T extends object = object>(siret: string, identifiantRoutage: string, over?: T) => ({
  siret,
  identifiantRoutage,
  libelleCodeRoutage: `Service ${identifiantRoutage}`,
  natureEtablissement: 'Privé',
  etatAdministratif: 'A',
  ...(over as T),
});
const routingLine = (siret: string, identifiantRoutage: string) => ({
  periodeEffet: { dateDebutEffet: today() },
  informationAdressage: { siren: siret.slice(0, 9), siret, identifiantRoutage, matriculePlateforme: '0145' },
});
const bySiret = (siret: string, more: object = {}) => ({
  filtres: { siret: { op: 'strict', valeur: siret } },
  ...more,
});

describe('Annuaire simulator: routing codes', () => {
  let sim: AnnuaireSimulator;
  let call: ReturnType<typeof api>;

  beforeAll(async () => {
    sim = await startAnnuaireSimulator({ host: '127.0.0.1', port: 0 });
    call = api(sim, await tokenOf(sim));
  });
  afterAll(() => sim.close());

  it('creates a routing code (201) and serves it by SIRET and code and by idInstance, as the spec shapes them', async () => {
    const siret = makeSiret();
    const body = newCode(siret, 'SERVICE-01', {
      typeIdentifiantRoutage: '0224',
      gestionEngagementJuridique: true,
      adresse: {
        ligneAdresse1: '16 BIS RUE HENRI BARBUSSE',
        codePostal: '38100',
        localite: 'Grenoble',
        codePays: 'FR',
      },
    });
    const created = await call('POST', '/code-routage', body);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ idInstance: expect.any(Number), siret, identifiantRoutage: 'SERVICE-01' });
    expect(against('_code_routage_post_201_response', created.body)).toEqual([]);

    const got = await call('GET', `/code-routage/siret:${siret}/code:SERVICE-01`);
    expect(got.status).toBe(200);
    expect(against('codeRoutagePayloadHistoUleEta', got.body)).toEqual([]);
    const { natureEtablissement: _, ...readable } = body; // written, but no read schema carries it
    expect(got.body).toEqual({
      ...readable,
      adresse: { ...body.adresse, libellePays: 'France' },
      historisation: {
        idInstance: created.body.idInstance,
        dateDebutEffet: today(),
        dateDefinition: expect.any(String),
        creePar: 'pa-dev',
        masque: false,
      },
    });
    const byId = await call('GET', `/code-routage/id-instance:${created.body.idInstance}`);
    expect([byId.status, byId.body]).toEqual([200, got.body]);
    expect(against('codeRoutagePayloadHisto', byId.body)).toEqual([]);

    // champs keeps the fields named; inclure=siren adds the company when the directory knows it.
    const some = await call('GET', `/code-routage/siret:${siret}/code:SERVICE-01?champs=identifiantRoutage,idInstance`);
    expect(some.body).toEqual({
      identifiantRoutage: 'SERVICE-01',
      historisation: { idInstance: created.body.idInstance },
    });
    await call('POST', '/code-routage', newCode('55203253400017', 'DANONE-AP'));
    const withCompany = await call('GET', '/code-routage/siret:55203253400017/code:DANONE-AP?inclure=siren');
    expect(withCompany.body.uniteLegale).toMatchObject({ siren: '552032534', raisonSociale: 'DANONE' });
    expect(against('codeRoutagePayloadHistoUleEta', withCompany.body)).toEqual([]);
    expect((await call('GET', `/code-routage/siret:${siret}/code:SERVICE-01?champs=couleur`)).status).toBe(400);

    // Not in force before it was created.
    const yesterday = today(new Date(Date.now() - 86_400_000));
    expect(
      (await call('GET', `/code-routage/siret:${siret}/code:SERVICE-01?dateObservation=${yesterday}`)).status,
    ).toBe(404);
    expect(sim.routingCodes().filter((c) => c.siret === siret)).toEqual([
      expect.objectContaining({ identifiantRoutage: 'SERVICE-01', natureEtablissement: 'Privé' }),
    ]);
  });

  it('checks bodies and path parameters against the spec: 400 with titre, statut, detail', async () => {
    const siret = makeSiret();
    const shortSiret = await call('POST', '/code-routage', newCode(siret.slice(1), 'S1'));
    expect(shortSiret).toMatchObject({
      status: 400,
      type: expect.stringContaining('application/problem+json'),
      body: { titre: 'Mauvaise requête', statut: 400, detail: expect.stringContaining('/siret') },
    });
    expect(
      (await call('POST', '/code-routage', newCode(siret, 'S1', { natureEtablissement: 'Privée' }))).body.detail,
    ).toContain('/natureEtablissement');
    expect((await call('POST', '/code-routage', newCode(siret, 'S1', { etatAdministratif: 'C' }))).status).toBe(400);
    expect((await call('POST', '/code-routage', newCode(siret, 'S1', { typeIdentifiantRoutage: '224' }))).status).toBe(
      400,
    );
    expect((await call('POST', '/code-routage', newCode(siret, 'S1', { raisonSociale: 'X' }))).body.detail).toContain(
      'raisonSociale',
    );
    const { libelleCodeRoutage: _, ...noLabel } = newCode(siret, 'S1');
    expect((await call('POST', '/code-routage', noLabel)).body.detail).toContain('libelleCodeRoutage');
    expect((await call('POST', '/code-routage', newCode(siret, 'S 1'))).status).toBe(400);
    expect((await call('GET', `/code-routage/siret:${siret.slice(1)}/code:S1`)).status).toBe(400);
    expect((await call('GET', '/code-routage/id-instance:abc')).status).toBe(400);
    expect(sim.routingCodes().filter((c) => c.siret === siret)).toEqual([]);
  });

  it('refuses a second create of the same SIRET and code (422, the spec lists no 409); 404 for unknown ones', async () => {
    const siret = makeSiret();
    const first = await call('POST', '/code-routage', newCode(siret, 'SERVICE-01'));
    const again = await call('POST', '/code-routage', newCode(siret, 'SERVICE-01', { libelleCodeRoutage: 'Autre' }));
    expect(again).toMatchObject({
      status: 422,
      type: expect.stringContaining('application/problem+json'),
      body: {
        titre: 'Erreur de validation des données',
        statut: 422,
        detail: `le code routage SERVICE-01 existe déjà pour le SIRET ${siret} (idInstance ${first.body.idInstance})`,
      },
    });
    // The same code under another SIRET is another code.
    expect((await call('POST', '/code-routage', newCode(makeSiret(), 'SERVICE-01'))).status).toBe(201);

    const unknown = await call('GET', `/code-routage/siret:${siret}/code:SERVICE-02`);
    expect(unknown).toMatchObject({
      status: 404,
      type: expect.stringContaining('application/problem+json'),
      body: { titre: 'Non trouvée', statut: 404, detail: expect.stringContaining('SERVICE-02') },
    });
    expect((await call('GET', '/code-routage/id-instance:999999999')).status).toBe(404);
    expect(
      (await call('PATCH', `/code-routage/id-instance:${first.body.idInstance}`, { etatAdministratif: 'F' })).status,
    ).toBe(501);
  });

  it('searches routing codes: filters, sort, pages (206), 204 when none matches', async () => {
    const siret = makeSiret();
    for (const [id, etat] of [
      ['GLN-3', 'A'],
      ['GLN-1', 'F'],
      ['SERVICE-2', 'A'],
    ] as const)
      expect((await call('POST', '/code-routage', newCode(siret, id, { etatAdministratif: etat }))).status).toBe(201);
    const ids = (r: { body: { resultats: { identifiantRoutage: string }[] } }) =>
      r.body.resultats.map((c) => c.identifiantRoutage);

    const all = await call(
      'POST',
      '/code-routage/recherche',
      bySiret(siret, { tris: [{ champ: 'identifiantRoutage' }] }),
    );
    expect(all.status).toBe(200);
    expect(against('_code_routage_recherche_post_200_response', all.body)).toEqual([]);
    expect([all.body.nombre_total_resultats, ids(all)]).toEqual([3, ['GLN-1', 'GLN-3', 'SERVICE-2']]);

    const gln = await call('POST', '/code-routage/recherche', {
      filtres: { siret: { op: 'strict', valeur: siret }, identifiantRoutage: { op: 'contient', valeur: 'gln' } },
      tris: [{ champ: 'identifiantRoutage', ordre: 'descendant' }],
    });
    expect(ids(gln)).toEqual(['GLN-3', 'GLN-1']);
    const open = await call('POST', '/code-routage/recherche', {
      filtres: { siret: { op: 'strict', valeur: siret }, etatAdministratif: { op: 'strict', valeur: 'A' } },
    });
    expect(ids(open).sort()).toEqual(['GLN-3', 'SERVICE-2']);

    const page = await call(
      'POST',
      '/code-routage/recherche',
      bySiret(siret, { tris: [{ champ: 'identifiantRoutage' }], limite: 2, ignorer: 1 }),
    );
    expect([page.status, page.body.nombre_total_resultats, ids(page)]).toEqual([200, 3, ['GLN-3', 'SERVICE-2']]);
    const partial = await call('POST', '/code-routage/recherche', bySiret(siret, { limite: 2 }));
    expect([partial.status, partial.body.resultats.length]).toEqual([206, 2]);

    expect((await call('POST', '/code-routage/recherche', bySiret(makeSiret()))).status).toBe(204);
    expect(
      (await call('POST', '/code-routage/recherche', { filtres: { siret: { op: 'contient', valeur: siret } } })).status,
    ).toBe(400);
  });

  it('refuses a routing-level line without its routing code, or with a closed one; accepts it with an open one', async () => {
    const siret = makeSiret();
    const without = await call('POST', '/ligne-annuaire', routingLine(siret, 'SERVICE-01'));
    expect(without).toMatchObject({
      status: 422,
      type: expect.stringContaining('application/problem+json'),
      body: {
        titre: 'Erreur de validation des données',
        statut: 422,
        detail: `le code routage SERVICE-01 n'existe pas pour le SIRET ${siret} : créez-le d'abord (POST /code-routage)`,
      },
    });
    // A code of another SIRET of the same company does not count.
    await call('POST', '/code-routage', newCode(`${siret.slice(0, 9)}00020`, 'SERVICE-01'));
    expect((await call('POST', '/ligne-annuaire', routingLine(siret, 'SERVICE-01'))).status).toBe(422);

    await call('POST', '/code-routage', newCode(siret, 'SERVICE-01'));
    const accepted = await call('POST', '/ligne-annuaire', routingLine(siret, 'SERVICE-01'));
    expect(accepted.status).toBe(201);
    expect(accepted.body.identifiantAdressage).toBe(`${siret.slice(0, 9)}_${siret}_SERVICE-01`);

    await call('POST', '/code-routage', newCode(siret, 'ANCIEN', { etatAdministratif: 'F' }));
    const closed = await call('POST', '/ligne-annuaire', routingLine(siret, 'ANCIEN'));
    expect(closed).toMatchObject({
      status: 422,
      body: {
        statut: 422,
        detail: `le code routage ANCIEN du SIRET ${siret} est fermé (etatAdministratif F) : aucune nouvelle ligne d'annuaire ne peut l'utiliser`,
      },
    });
    expect(sim.lines().filter((l) => l.siret === siret)).toHaveLength(1);

    // Seeding stays free of business rules; seeded codes count like created ones.
    const other = makeSiret();
    expect(
      sim.seedLine({ siren: other.slice(0, 9), siret: other, identifiantRoutage: 'X', matriculePlateforme: '0042' }),
    ).toMatchObject({ identifiantRoutage: 'X' });
    const seeded = sim.seedRoutingCode({ siret: other, identifiantRoutage: 'SEEDED' });
    expect(seeded).toMatchObject({ etatAdministratif: 'A', natureEtablissement: 'Privé', dateDebutEffet: today() });
    expect((await call('POST', '/ligne-annuaire', routingLine(other, 'SEEDED'))).status).toBe(201);
    sim.seedRoutingCode({ siret: other, identifiantRoutage: 'SEEDED-F', etatAdministratif: 'F' });
    expect((await call('POST', '/ligne-annuaire', routingLine(other, 'SEEDED-F'))).status).toBe(422);
    expect(() => sim.seedRoutingCode({ siret: other, identifiantRoutage: 'SEEDED' })).toThrow(/existe déjà/);
  });

  it('injects faults on the routing-code endpoints like on the others', async () => {
    const siret = makeSiret();
    sim.setFaults({ status: 503, count: 1, only: 'POST /code-routage' });
    const failed = await call('POST', '/code-routage', newCode(siret, 'SERVICE-01'));
    expect(failed).toMatchObject({ status: 503, body: { titre: 'Service indisponible', statut: 503 } });
    expect(sim.routingCodes().filter((c) => c.siret === siret)).toEqual([]);
    sim.setFaults({ status: 429, only: 'GET /code-routage/siret:*' });
    expect((await call('GET', `/code-routage/siret:${siret}/code:SERVICE-01`)).status).toBe(429);
    expect((await call('POST', '/code-routage/recherche', bySiret(siret))).status).toBe(204);

    // Carried out, answer lost: the retry finds the code already there.
    sim.setFaults({ timeoutAfterWorkRate: 1, timeoutMs: 200, only: 'POST /code-routage' });
    await expect(call('POST', '/code-routage', newCode(siret, 'SERVICE-01'))).rejects.toThrow();
    sim.setFaults(undefined);
    expect((await call('POST', '/code-routage', newCode(siret, 'SERVICE-01'))).status).toBe(422);
    expect((await call('GET', `/code-routage/siret:${siret}/code:SERVICE-01`)).status).toBe(200);
  });
});

describe('Annuaire simulator state: routing codes', () => {
  it('persists routing codes with the lines and reloads them at start', async () => {
    const stateFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'annuaire-')), 'state.json');
    const siret = makeSiret();
    const first = await startAnnuaireSimulator({ host: '127.0.0.1', port: 0, stateFile });
    const created = await api(first, await tokenOf(first))('POST', '/code-routage', newCode(siret, 'SERVICE-01'));
    await api(first, await tokenOf(first))(
      'POST',
      '/code-routage',
      newCode(siret, 'ANCIEN', { etatAdministratif: 'F' }),
    );
    await first.close();
    expect(JSON.parse(fs.readFileSync(stateFile, 'utf8')).routingCodes).toHaveLength(2);

    const second = await startAnnuaireSimulator({ host: '127.0.0.1', port: 0, stateFile });
    try {
      const call = api(second, await tokenOf(second));
      expect(second.routingCodes().map((c) => c.identifiantRoutage)).toEqual(['SERVICE-01', 'ANCIEN']);
      expect((await call('GET', `/code-routage/siret:${siret}/code:SERVICE-01`)).body.historisation.idInstance).toBe(
        created.body.idInstance,
      );
      expect((await call('POST', '/code-routage', newCode(siret, 'SERVICE-01'))).status).toBe(422);
      expect((await call('POST', '/ligne-annuaire', routingLine(siret, 'SERVICE-01'))).status).toBe(201);
      expect((await call('POST', '/ligne-annuaire', routingLine(siret, 'ANCIEN'))).status).toBe(422);
      const next = await call('POST', '/code-routage', newCode(siret, 'SERVICE-02'));
      expect(next.body.idInstance).toBeGreaterThan(created.body.idInstance); // ids are never reused
    } finally {
      await second.close();
    }
  });

  it('loads a state file written before routing codes existed', async () => {
    const stateFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'annuaire-')), 'state.json');
    const siren = makeSiren();
    const line = {
      idInstance: 7,
      identifiantAdressage: siren,
      siren,
      matriculePlateforme: '0042',
      dateDebutEffet: '2025-01-01',
      dateFinEffet: null,
      dateDefinition: '2025-01-01T00:00:00.000Z',
      creePar: 'seed',
      modifications: [],
    };
    fs.writeFileSync(stateFile, JSON.stringify({ nextId: 8, lines: [line] }));
    const sim = await startAnnuaireSimulator({ host: '127.0.0.1', port: 0, stateFile });
    try {
      expect(sim.lines()).toEqual([line]);
      expect(sim.routingCodes()).toEqual([]);
      const call = api(sim, await tokenOf(sim));
      const created = await call('POST', '/code-routage', newCode(makeSiret(siren), 'SERVICE-01'));
      expect([created.status, created.body.idInstance]).toEqual([201, 8]);
      expect(JSON.parse(fs.readFileSync(stateFile, 'utf8'))).toMatchObject({ nextId: 9, lines: [line] });
    } finally {
      await sim.close();
    }
  });
});
