// The Annuaire client against the simulator over real HTTP: spec paths and bodies, token handling, error classes.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AnnuaireError, createAnnuaireClient, today, type AnnuaireClient } from '../../../integrations/annuaire/client';
import { parseRetryAfter } from '../../../integrations/annuaire/errors';
import { startAnnuaireSimulator, type AnnuaireSimulator } from '../../../simulators/annuaire';
import { makeSiren } from '../../../bin/stack/sample-parties';
import { recordingProxy } from '../../support/recording-proxy';

describe('Annuaire client', () => {
  let sim: AnnuaireSimulator;
  let client: AnnuaireClient;
  const make = (over: Partial<Parameters<typeof createAnnuaireClient>[0]> = {}) =>
    createAnnuaireClient({
      baseUrl: sim.url,
      tokenUrl: sim.tokenUrl,
      clientId: 'pa-dev',
      clientSecret: 'pa-dev-secret',
      rattachements: ['552032534'],
      ...over,
    });

  beforeAll(async () => {
    sim = await startAnnuaireSimulator({ host: '127.0.0.1', port: 0 });
    client = make();
  });
  afterEach(() => sim.setFaults(undefined));
  /** A client of `s` through a proxy recording its requests; `kinds()` names each one token or api, in order. */
  const recorded = async (s: AnnuaireSimulator, over: Partial<Parameters<typeof createAnnuaireClient>[0]> = {}) => {
    const proxy = await recordingProxy(s.url);
    const c = createAnnuaireClient({
      baseUrl: proxy.via(s.url),
      tokenUrl: proxy.via(s.tokenUrl),
      clientId: 'pa-dev',
      clientSecret: 'pa-dev-secret',
      ...over,
    });
    const tokenPath = new URL(s.tokenUrl).pathname;
    return { c, proxy, kinds: () => proxy.requests.map((r) => (r.path === tokenPath ? 'token' : 'api')) };
  };
  afterAll(() => sim.close());

  it('switches a SIREN from 9998 to us: search, end, create, get', async () => {
    const siren = makeSiren();
    const [dflt, ...rest] = await client.searchLines({ siren, dateObservation: today() });
    expect(rest).toEqual([]);
    expect(dflt).toMatchObject({ siren, identifiantAdressage: siren, matriculePlateforme: '9998', dateFinEffet: null });

    await client.endLine(dflt!.idInstance, today());
    const created = await client.createLine({ siren, matriculePlateforme: '0145', dateDebutEffet: today() });
    expect(created).toEqual({ idInstance: expect.any(Number), identifiantAdressage: siren, dateDebutEffet: today() });

    expect(await client.getLine(siren)).toMatchObject({
      idInstance: created.idInstance,
      matriculePlateforme: '0145',
      dateDebutEffet: today(),
    });
    const history = await client.searchLines({ siren, modeAudit: true });
    expect(history.map((l) => [l.matriculePlateforme, l.dateFinEffet])).toEqual([
      ['9998', today()],
      ['0145', null],
    ]);
  });

  it('creates and reads routing codes; a routing-level line needs an open one', async () => {
    const siren = makeSiren();
    const siret = `${siren}00012`;
    const service = {
      siret,
      identifiantRoutage: 'SERVICE-ACHATS',
      libelleCodeRoutage: 'Service des achats',
      natureEtablissement: 'Public',
      etatAdministratif: 'A',
      typeIdentifiantRoutage: '0224',
      gestionEngagementJuridique: true,
    } as const;
    const routingLine = (identifiantRoutage: string) =>
      client.createLine({ siren, siret, identifiantRoutage, matriculePlateforme: '0145', dateDebutEffet: today() });
    const failure = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: unknown) => e as AnnuaireError,
      );

    expect(await client.getRoutingCode(siret, 'SERVICE-ACHATS')).toBeNull();
    expect(await failure(routingLine('SERVICE-ACHATS'))).toMatchObject({
      status: 422,
      retryable: false,
      detail: expect.stringContaining("le code routage SERVICE-ACHATS n'existe pas pour le SIRET"),
    });

    const created = await client.createRoutingCode(service);
    expect(created).toEqual({ idInstance: expect.any(Number) });
    // natureEtablissement is written, not read back: 1.11.0's read schemas do not carry it.
    const { natureEtablissement: _, ...read } = service;
    expect(await client.getRoutingCode(siret, 'SERVICE-ACHATS')).toEqual({ ...read, idInstance: created.idInstance });
    expect(await failure(client.createRoutingCode(service))).toMatchObject({
      status: 422,
      retryable: false,
      detail: expect.stringContaining('existe déjà'),
    });
    expect(await client.getRoutingCode(`${makeSiren()}00012`, 'SERVICE-ACHATS')).toBeNull();

    expect(await routingLine('SERVICE-ACHATS')).toMatchObject({
      identifiantAdressage: `${siren}_${siret}_SERVICE-ACHATS`,
    });
    await client.createRoutingCode({ ...service, identifiantRoutage: 'ANCIEN', etatAdministratif: 'F' });
    expect(await failure(routingLine('ANCIEN'))).toMatchObject({
      status: 422,
      detail: expect.stringContaining('est fermé'),
    });
  });

  it('masks a line not yet in force and reads it back by idInstance; refuses one in force', async () => {
    const siren = makeSiren();
    const siret = `${siren}00012`;
    const later = today(new Date(Date.now() + 10 * 86_400_000));
    const future = await client.createLine({ siren, siret, matriculePlateforme: '0145', dateDebutEffet: later });
    expect(await client.getLineById(future.idInstance)).toMatchObject({
      idInstance: future.idInstance,
      dateDebutEffet: later,
    });
    expect((await client.getLineById(future.idInstance))?.masked).toBeUndefined();

    await client.maskLine(future.idInstance);
    expect(await client.getLineById(future.idInstance)).toEqual({
      idInstance: future.idInstance,
      identifiantAdressage: `${siren}_${siret}`,
      siren,
      siret,
      matriculePlateforme: '0145',
      dateDebutEffet: later,
      dateFinEffet: null,
      masked: true,
    });
    await client.maskLine(future.idInstance); // again: done already
    expect(await client.searchLines({ siren, dateObservation: later })).toEqual([
      expect.objectContaining({ matriculePlateforme: '9998' }),
    ]);

    const unknown = Math.max(...sim.lines().map((l) => l.idInstance)) + 1_000_000;
    expect(await client.getLineById(unknown)).toBeNull();
    await expect(client.maskLine(unknown)).resolves.toBeUndefined();

    const [inForce] = await client.searchLines({ siren });
    const err = await client.maskLine(inForce!.idInstance).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AnnuaireError);
    expect(err).toMatchObject({ status: 422, retryable: false, detail: expect.stringContaining('clôturez-la') });
    expect(await client.getLineById(inForce!.idInstance)).toMatchObject({
      matriculePlateforme: '9998',
      dateFinEffet: null,
    });
    expect((await client.getLineById(inForce!.idInstance))?.masked).toBeUndefined();
  });

  it('returns null for an address without a line in force, and [] for an empty search', async () => {
    expect(await client.getLine(`${makeSiren()}_unknown-suffix`)).toBeNull();
    expect(await client.searchLines({ matriculePlateforme: '0998' })).toEqual([]);
  });

  it('follows result pages', async () => {
    for (let i = 0; i < 105; i++) sim.seedLine({ siren: makeSiren(), matriculePlateforme: '0777' });
    const lines = await client.searchLines({ matriculePlateforme: '0777' });
    expect(lines).toHaveLength(105);
    expect(new Set(lines.map((l) => l.idInstance)).size).toBe(105);
  });

  it('caches its token, and gets a new one once on 401', async () => {
    const { c: fresh, proxy, kinds } = await recorded(sim);
    const tokenCalls = () => kinds().filter((k) => k === 'token').length;
    try {
      await fresh.searchLines({ siren: makeSiren() });
      await fresh.searchLines({ siren: makeSiren() });
      expect(tokenCalls()).toBe(1);

      sim.revokeTokens();
      expect(await fresh.searchLines({ siren: makeSiren() })).toHaveLength(1);
      expect(tokenCalls()).toBe(2);
    } finally {
      await proxy.close();
    }
  });

  it('refreshes a token before it expires', async () => {
    const shortSim = await startAnnuaireSimulator({ host: '127.0.0.1', port: 0, tokenTtlSeconds: 1 });
    try {
      const { c, proxy, kinds } = await recorded(shortSim);
      await c.searchLines({ siren: makeSiren() });
      await new Promise((r) => setTimeout(r, 600)); // past half-life, before expiry
      await c.searchLines({ siren: makeSiren() });
      await proxy.close();
      // token, search, token, search: never a 401 round trip
      expect(kinds()).toEqual(['token', 'api', 'token', 'api']);
    } finally {
      await shortSim.close();
    }
  });

  it('wrong credentials: a non-retryable 401', async () => {
    const err = await make({ clientSecret: 'nope' })
      .searchLines({ siren: makeSiren() })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AnnuaireError);
    expect(err).toMatchObject({ status: 401, retryable: false });
  });

  it('classifies errors: 429/503/timeouts/network retryable, 400/422 not', async () => {
    const failure = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: unknown) => e as AnnuaireError,
      );
    for (const status of [429, 503, 500]) {
      sim.setFaults({ status });
      expect(await failure(client.searchLines({ siren: makeSiren() }))).toMatchObject({
        status,
        retryable: true,
        detail: expect.stringContaining(String(status)),
      });
    }
    sim.setFaults({ latencyMs: 500 });
    expect(await failure(make({ timeoutMs: 100 }).searchLines({ siren: makeSiren() }))).toMatchObject({
      status: undefined,
      retryable: true,
    });
    sim.setFaults(undefined);

    const unreachable = createAnnuaireClient({
      baseUrl: 'http://127.0.0.1:9/x',
      tokenUrl: 'http://127.0.0.1:9/token',
      clientId: 'a',
      clientSecret: 'b',
    });
    expect(await failure(unreachable.searchLines({ siren: makeSiren() }))).toMatchObject({
      status: undefined,
      retryable: true,
    });

    const invalid = await failure(
      client.createLine({ siren: 'ABC', matriculePlateforme: '0145', dateDebutEffet: today() }),
    );
    expect(invalid).toMatchObject({ status: 400, retryable: false, titre: 'Mauvaise requête' });
    const overlap = await failure(
      client.createLine({ siren: makeSiren(), matriculePlateforme: '0145', dateDebutEffet: today() }),
    );
    expect(overlap).toMatchObject({ status: 422, retryable: false, detail: expect.stringContaining('chevauche') });
  });

  it('sends PPF-Rattachements on writes', async () => {
    const { c, proxy } = await recorded(sim, { rattachements: ['552032534'] });
    const siren = makeSiren();
    const [line] = await c.searchLines({ siren });
    await c.endLine(line!.idInstance, today());
    await proxy.close();
    const patch = proxy.requests.find((r) => r.method === 'PATCH');
    expect(patch?.path).toBe(`${new URL(sim.url).pathname}/ligne-annuaire/id-instance:${line!.idInstance}`);
    expect(patch?.headers['ppf-rattachements']).toBe('552032534');
    expect(
      proxy.requests.find((r) => r.method === 'POST' && r.path.endsWith('/recherche'))?.headers['ppf-rattachements'],
    ).toBeUndefined();
  });

  it('keeps the PPF detail and the Retry-After of throttling and unavailability', async () => {
    const failure = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: unknown) => e as AnnuaireError,
      );
    sim.setFaults({ errorRates: { 429: 1 }, retryAfterSeconds: 7, detail: 'quota de 100 appels par minute dépassé' });
    expect(await failure(client.searchLines({ siren: makeSiren() }))).toMatchObject({
      status: 429,
      retryable: true,
      retryAfterMs: 7000,
      titre: 'Trop de requêtes',
      detail: 'quota de 100 appels par minute dépassé',
      message: 'Annuaire 429: quota de 100 appels par minute dépassé',
    });
    sim.setFaults({ status: 503, retryAfterSeconds: 2 });
    expect(await failure(client.searchLines({ siren: makeSiren() }))).toMatchObject({
      status: 503,
      retryable: true,
      retryAfterMs: 2000,
    });
    sim.setFaults({ status: 503 });
    expect((await failure(client.searchLines({ siren: makeSiren() })))?.retryAfterMs).toBeUndefined();
    expect(parseRetryAfter(new Date(Date.now() + 30_000).toUTCString())).toBeGreaterThan(28_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter('86400')).toBe(600_000); // capped: beyond that our own backoff decides
  });

  it('403 and 404 are not retryable; a 401 that survives a fresh token is not either', async () => {
    const failure = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: unknown) => e as AnnuaireError,
      );
    for (const status of [403, 404, 422]) {
      sim.setFaults({ status, detail: `refus ${status} du PPF` });
      expect(await failure(client.searchLines({ siren: makeSiren() }))).toMatchObject({
        status,
        retryable: false,
        detail: `refus ${status} du PPF`,
      });
    }
    const { c: fresh, proxy, kinds } = await recorded(sim);
    sim.setFaults({ status: 401, detail: 'jeton refusé' });
    expect(await failure(fresh.searchLines({ siren: makeSiren() }))).toMatchObject({
      status: 401,
      retryable: false,
      detail: 'jeton refusé',
    });
    await proxy.close();
    expect(kinds()).toEqual(['token', 'api', 'token', 'api']);
  });

  it('a request held without an answer times out as a retryable error', async () => {
    sim.setFaults({ timeoutRate: 1, timeoutMs: 5_000 });
    const t0 = Date.now();
    const err = await make({ timeoutMs: 300 })
      .searchLines({ siren: makeSiren() })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: undefined, retryable: true, detail: expect.stringContaining('timed out') });
    expect(Date.now() - t0).toBeLessThan(2_000);
  });

  it('keeps working across token expiries in the middle of a run', async () => {
    const shortSim = await startAnnuaireSimulator({
      host: '127.0.0.1',
      port: 0,
      tokenTtlSeconds: 1,
      faults: { latencyMs: 150 },
    });
    try {
      const { c, proxy, kinds } = await recorded(shortSim);
      const siren = makeSiren();
      const t0 = Date.now();
      let calls = 0;
      // ~2.5 s of back-to-back calls on 1 s tokens; midway the gateway also forgets every token.
      while (Date.now() - t0 < 2_500) {
        if (calls === 6) shortSim.revokeTokens();
        expect(await c.searchLines({ siren })).toHaveLength(1);
        calls++;
      }
      await proxy.close();
      expect(kinds().filter((k) => k === 'token').length).toBeGreaterThanOrEqual(4);
    } finally {
      await shortSim.close();
    }
  });
});
