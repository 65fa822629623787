// Our client of the API Recherche d'entreprises against its simulator, over HTTP: a company's directors of both
// kinds, null for a company the register does not show, its 429 (Retry-After) and faults as retryable failures, and
// our own pace under the configured rate, failing fast rather than holding a confirmation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRechercheClient } from '../../integrations/recherche-entreprises/client';
import { startRechercheSimulator, type RechercheSimulator } from '../../simulators/recherche-entreprises';
import { RemoteFailure } from '../../domain/remote-failure';

let sim: RechercheSimulator;
beforeAll(async () => {
  sim = await startRechercheSimulator({ host: '127.0.0.1', port: 0, rateLimitPerSecond: null });
  sim.seedCompany({
    siren: '111111111',
    nom_raison_sociale: 'FILIALE EXEMPLE',
    dirigeants: [
      { type_dirigeant: 'personne physique', nom: 'MARTIN', prenoms: 'Élodie Anne', qualite: 'Directrice générale' },
      { type_dirigeant: 'personne morale', siren: '222222222', denomination: 'HOLDING EXEMPLE', qualite: 'Président' },
    ],
  });
  sim.seedCompany({ siren: '333333333', nom_raison_sociale: 'DISCRETE', diffusible: false, dirigeants: [] });
});
afterAll(() => sim?.close());

const client = (o: { perSecond?: number; timeoutMs?: number } = {}) =>
  createRechercheClient({
    baseUrl: sim.url,
    perSecond: o.perSecond ?? 100,
    timeoutMs: o.timeoutMs ?? 2_000,
    userAgent: 'test',
  });

describe('the client', () => {
  it("reads a company's directors, people and legal persons", async () => {
    expect(await client().directorsOf('111111111')).toEqual([
      { kind: 'person', surname: 'MARTIN', givenNames: 'Élodie Anne', role: 'Directrice générale' },
      { kind: 'legal-person', siren: '222222222', name: 'HOLDING EXEMPLE', role: 'Président' },
    ]);
  });

  it('answers null for a company the register does not show: unknown, or not public', async () => {
    expect(await client().directorsOf('999999999')).toBeNull();
    expect(await client().directorsOf('333333333')).toBeNull();
  });

  it("reports the register's 429 as retryable, with its Retry-After", async () => {
    sim.setFaults({ errorRates: { 429: 1 }, retryAfterSeconds: 3, count: 1 });
    const err = await client()
      .directorsOf('111111111')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RemoteFailure);
    expect(err).toMatchObject({ system: 'public-register', retryable: true, status: 429, retryAfterMs: 3000 });
  });

  it('keeps under its rate, and fails at once a lookup that would wait past its timeout', async () => {
    const paced = client({ perSecond: 2, timeoutMs: 700 });
    const before = sim.requests()['200'] ?? 0;
    const started = Date.now();
    const results = await Promise.allSettled([1, 2, 3, 4].map(() => paced.directorsOf('111111111')));
    // 2 a second: the first now, the second 500 ms later; the third would wait 1 s, past its 700 ms.
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected']);
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ retryable: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    expect((sim.requests()['200'] ?? 0) - before).toBe(2);
  });
});
