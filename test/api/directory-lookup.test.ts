// GET /directory/siren/{siren} and /directory/identifier/{identifier} (gov-fr_v1.yaml) answered from the simulated
// Annuaire through the client, on an app mounting the router as the gov-fr router will.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { directoryLookupRouter } from '../../api/gov-fr/directory';
import { errorHandler } from '../../web/http/problem';
import { loadConfig } from '../../platform/config';
import { startAnnuaireSimulator, type AnnuaireSimulator } from '../../simulators/annuaire';
import { makeSiren } from '../../bin/stack/sample-parties';
import { log } from '../support/harness';

const DIRECTORY_ENTRY_KEYS = [
  'id_instance',
  'siren',
  'siret',
  'routing_code',
  'platform_id',
  'identifier',
  'suffix',
  'start_date',
  'end_date',
  'effective_end_date',
];

describe('directory lookups', () => {
  let sim: AnnuaireSimulator;
  let server: Server;
  let base: string;
  const get = async (p: string) => {
    const res = await fetch(base + p);
    return {
      status: res.status,
      type: res.headers.get('content-type') ?? '',
      retryAfter: res.headers.get('retry-after'),
      body: (await res.json()) as any,
    };
  };

  beforeAll(async () => {
    sim = await startAnnuaireSimulator({ host: '127.0.0.1', port: 0 });
    const config = loadConfig({
      DATA_DIR: path.join(os.tmpdir(), 'pa-test'),
      ANNUAIRE_URL: sim.url,
      ANNUAIRE_TOKEN_URL: sim.tokenUrl,
    });
    const app = express();
    app.use('/apps/gov-fr/v1/directory', express.json(), directoryLookupRouter({ config, log }));
    app.use(errorHandler(log));
    server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/apps/gov-fr/v1/directory`;
  });
  afterEach(() => sim.setFaults(undefined));
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    await sim.close();
  });

  it('by SIREN: every line in force or scheduled, in the DirectoryEntry shape; ended lines are history', async () => {
    const siren = makeSiren();
    const siret = `${siren}00012`;
    sim.seedLine({ siren, matriculePlateforme: '0042', dateDebutEffet: '2025-01-01', dateFinEffet: '2025-09-01' });
    const ours = sim.seedLine({ siren, matriculePlateforme: '0145', dateDebutEffet: '2025-09-01' });
    sim.seedLine({
      siren,
      siret,
      identifiantRoutage: 'SERVICE-01',
      matriculePlateforme: '0145',
      dateDebutEffet: '2025-09-01',
      dateFinEffet: '2099-12-31',
    });
    sim.seedLine({ siren, suffixeAdressage: 'achats', matriculePlateforme: '0145', dateDebutEffet: '2099-01-01' });

    const r = await get(`/siren/${siren}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ siren, count: 3 });
    expect(r.body.results).toHaveLength(3);
    for (const e of r.body.results) expect(Object.keys(e).sort()).toEqual([...DIRECTORY_ENTRY_KEYS].sort());
    expect(r.body.results[0]).toEqual({
      id_instance: String(ours.idInstance),
      siren,
      siret: '',
      routing_code: '',
      platform_id: '0145',
      identifier: siren,
      suffix: '',
      start_date: '20250901',
      end_date: '',
      effective_end_date: '',
    });
    expect(r.body.results.slice(1)).toEqual([
      expect.objectContaining({
        identifier: `${siren}_${siret}_SERVICE-01`,
        siret,
        routing_code: 'SERVICE-01',
        end_date: '20991231',
        effective_end_date: '20991231',
      }),
      expect.objectContaining({ identifier: `${siren}_achats`, suffix: 'achats', start_date: '20990101' }),
    ]);
  });

  it('a SIREN nobody registered shows its default line on 9998', async () => {
    const siren = makeSiren();
    const r = await get(`/siren/${siren}`);
    expect(r.body).toEqual({
      siren,
      count: 1,
      results: [expect.objectContaining({ platform_id: '9998', identifier: siren })],
    });
  });

  it('by identifier: the exact address only, with or without its 0225 ICD', async () => {
    const siren = makeSiren();
    sim.seedLine({ siren, matriculePlateforme: '0145' });
    sim.seedLine({ siren, suffixeAdressage: 'Achats', matriculePlateforme: '0145' });
    sim.seedLine({ siren, suffixeAdressage: 'Achats2', matriculePlateforme: '0145' });

    const plain = await get(`/identifier/${siren}`);
    expect(plain.body).toEqual({
      identifier: siren,
      count: 1,
      results: [expect.objectContaining({ identifier: siren, suffix: '' })],
    });
    const peppol = await get(`/identifier/${encodeURIComponent(`0225:${siren}_Achats`)}`);
    expect(peppol.body).toEqual({
      identifier: `0225:${siren}_Achats`,
      count: 1,
      results: [expect.objectContaining({ identifier: `${siren}_Achats`, suffix: 'Achats' })],
    });
    const none = await get(`/identifier/${siren}_Ventes`);
    expect(none.body).toEqual({ identifier: `${siren}_Ventes`, count: 0, results: [] });
  });

  it('refuses an invalid SIREN or identifier with a 400 problem, without asking the directory', async () => {
    sim.setFaults({ status: 500 }); // would show if the directory were called
    for (const p of [
      '/siren/123456789',
      '/siren/12345',
      '/siren/abcdefghi',
      '/identifier/123456789',
      '/identifier/hello',
      '/identifier/0225:732829320_a b',
    ]) {
      const r = await get(p.replace(' ', '%20'));
      expect(r.status, p).toBe(400);
      expect(r.type).toContain('application/problem+json');
      expect(r.body).toMatchObject({
        status: 400,
        detail: expect.stringMatching(/^invalid path: path\.(siren|identifier): /),
      });
    }
  });

  it('an unavailable directory is a 503 problem (with its Retry-After); a refusing one a 502, with the PPF detail', async () => {
    sim.setFaults({ status: 429, retryAfterSeconds: 4 });
    const busy = await get(`/siren/${makeSiren()}`);
    expect(busy).toMatchObject({
      status: 503,
      retryAfter: '4',
      body: { status: 503, detail: expect.stringContaining('panne simulée (429)') },
    });
    sim.setFaults({ status: 503 }); // no Retry-After from the directory: ours
    expect(await get(`/identifier/${makeSiren()}`)).toMatchObject({ status: 503, retryAfter: '5' });

    sim.setFaults({ status: 403, detail: "le client n'est pas habilité à consulter l'annuaire" });
    const refused = await get(`/siren/${makeSiren()}`);
    expect(refused).toMatchObject({
      status: 502,
      body: { status: 502, detail: expect.stringContaining("n'est pas habilité") },
    });
  });
});
