// The simulators' shared fault injection: rule sets stacked over each other, bursts, requests chosen by body, and
// the same forms (error shares, held requests, 429 with Retry-After) on the SML and the Peppol Directory.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatorFaultsFromEnv, startSimulators, type Simulators } from '../../simulators';
import { faultInjector } from '../../simulators/faults';

/** A fixed sequence of draws, so shares are exact. */
const draws =
  (...xs: number[]) =>
  () =>
    xs.shift() ?? 0.99;

describe('fault decisions', () => {
  it('splits requests by share: held first, then each status in order', () => {
    const f = faultInjector({ timeoutRate: 0.1, timeoutMs: 500, errorRates: { 503: 0.3 }, retryAfterSeconds: 1 });
    const r = draws(0.05, 0.2, 0.39, 0.5);
    expect([1, 2, 3, 4].map(() => f.decide({ target: 'POST /x' }, r).kind)).toEqual(['hold', 'error', 'error', 'none']);
    expect(f.decide({ target: 'POST /x' }, draws(0.2))).toMatchObject({ status: 503, retryAfterSeconds: 1 });
    expect(f.seen()).toEqual({ timeout: 1, 503: 3 });
  });

  it('times out some requests after carrying them out: held before the work, then held after it, then errors', () => {
    const f = faultInjector({
      timeoutRate: 0.05,
      timeoutAfterWorkRate: 0.05,
      timeoutMs: 400,
      errorRates: { 503: 0.3 },
    });
    const r = draws(0.01, 0.07, 0.2, 0.5);
    expect([1, 2, 3, 4].map(() => f.decide({ target: 'POST /x' }, r))).toEqual([
      { kind: 'hold', latencyMs: 0, ms: 400 },
      { kind: 'none', latencyMs: 0, loseResponse: true, holdMs: 400 },
      expect.objectContaining({ kind: 'error', status: 503 }),
      { kind: 'none', latencyMs: 0, loseResponse: false },
    ]);
    expect(f.seen()).toEqual({ timeout: 1, 'timeout after work': 1, 503: 1 });
  });

  it('stacks rule sets: a burst over the background, then the background again', () => {
    const f = faultInjector([{ status: 429, count: 2 }, { errorRates: { 503: 0.5 } }]);
    const statuses = [0.9, 0.9, 0.9, 0.1].map((d) => {
      const a = f.decide({ target: 'GET /y' }, draws(d));
      return a.kind === 'error' ? a.status : 200;
    });
    expect(statuses).toEqual([429, 429, 200, 503]);
    expect(f.decide({ target: 'GET /y' }, draws(0.9))).toMatchObject({ kind: 'none' });
  });

  it('targets requests by body text and by path; exempt requests only when named', () => {
    const f = faultInjector([
      { status: 422, only: 'POST /ligne-annuaire', bodyIncludes: '123456782', detail: 'refusé' },
      { status: 503, count: 1 },
    ]);
    expect(f.needsBody()).toBe(true);
    expect(f.decide({ target: 'POST /ligne-annuaire', body: '{"siren":"123456782"}' })).toMatchObject({
      status: 422,
      detail: 'refusé',
    });
    expect(f.decide({ target: 'POST /oauth/token', exempt: true }).kind).toBe('none'); // the burst is not spent on it
    expect(f.decide({ target: 'POST /ligne-annuaire', body: '{"siren":"987654324"}' })).toMatchObject({ status: 503 });
    expect(f.decide({ target: 'POST /ligne-annuaire', body: '{"siren":"987654324"}' }).kind).toBe('none');
    expect(f.decide({ target: 'POST /ligne-annuaire', body: '{"siren":"123456782"}' })).toMatchObject({ status: 422 }); // permanent
  });

  it('reads stacked settings from the environment and refuses unknown fields', () => {
    expect(
      simulatorFaultsFromEnv({
        SIM_FAULTS_SML: '[{"status":429,"count":20},{"errorRates":{"503":0.3},"timeoutRate":0.1,"timeoutMs":4000}]',
      }).sml,
    ).toEqual([
      { status: 429, count: 20 },
      { errorRates: { 503: 0.3 }, timeoutRate: 0.1, timeoutMs: 4000 },
    ]);
    expect(() => simulatorFaultsFromEnv({ SIM_FAULTS_PEPPOL_DIRECTORY: '{"timeoutrate":0.1}' })).toThrow(
      /SIM_FAULTS_PEPPOL_DIRECTORY is not a fault setting/,
    );
    expect(() => simulatorFaultsFromEnv({ SIM_FAULTS_ANNUAIRE: '{"errorRates":{"abc":1}}' })).toThrow(/errorRates.abc/);
  });
});

describe('the SML and the Peppol Directory take the same forms', () => {
  let sims: Simulators;
  beforeAll(async () => {
    sims = await startSimulators({ host: '127.0.0.1' });
  });
  afterAll(() => sims.close());

  const participant = (code: string) => `iso6523-actorid-upis::0225:${code}`;
  const sml = (body = '<x/>', signal?: AbortSignal) =>
    fetch(sims.sml.endpoint, { method: 'POST', headers: { 'content-type': 'text/xml' }, body, signal });
  const index = (code: string, signal?: AbortSignal) =>
    fetch(`${sims.directory.url}/indexer/1.0/`, {
      method: 'PUT',
      headers: { 'content-type': 'text/plain' },
      body: participant(code),
      signal,
    });

  it('a 429 burst with Retry-After, then the background share of 503s', async () => {
    sims.sml.setFaults([
      { status: 429, count: 3 },
      { errorRates: { 503: 1 }, retryAfterSeconds: 2 },
    ]);
    const answers = [];
    for (let i = 0; i < 4; i++) {
      const r = await sml();
      answers.push([r.status, r.headers.get('retry-after')]);
    }
    expect(answers).toEqual([
      [429, '1'],
      [429, '1'],
      [429, '1'],
      [503, '2'],
    ]);
    expect(sims.sml.faultsSeen()).toMatchObject({ 429: 3, 503: 1 });
    sims.sml.setFaults(undefined);
  });

  it('held requests: no answer, the client gives up', async () => {
    sims.directory.setFaults({ timeoutRate: 1, timeoutMs: 5_000 });
    const t0 = Date.now();
    await expect(index('123456782', AbortSignal.timeout(300))).rejects.toThrow(/aborted|timeout/i);
    expect(Date.now() - t0).toBeLessThan(4_000);
    sims.sml.setFaults({ timeoutRate: 1, timeoutMs: 300 });
    await expect(sml()).rejects.toThrow(); // dropped after 300 ms without a status line
    expect(sims.directory.faultsSeen().timeout).toBe(1);
    sims.directory.setFaults(undefined);
    sims.sml.setFaults(undefined);
  });

  it('one participant refused by body, the others indexed', async () => {
    sims.directory.setFaults({
      status: 422,
      only: 'PUT /indexer/1.0/',
      bodyIncludes: '0225:123456782',
      detail: 'refused for this test',
    });
    const refused = await index('123456782');
    expect([refused.status, await refused.text()]).toEqual([422, 'refused for this test']);
    expect((await index('987654324')).status).toBe(204);
    expect(sims.directory.indexed()).toEqual([participant('987654324')]);
    sims.directory.setFaults(undefined);
  });
});
