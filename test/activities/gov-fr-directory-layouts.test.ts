// The directory step against the Annuaire simulator over generated layouts (lines of other platforms and of 9998, past,
// in force and to come, at the SIREN and a SIRET), each with a fault before or after one kind of call (503, an answer
// lost after the work, a dropped connection) or a crash between two calls, retried as Temporal would until it ends.
// Judged with the PPF's rules written apart (test/support/directory-oracle.ts): every address that resolved to a
// platform still does, the SIREN has a line every day, no two lines overlap, no line of ours twice; a refusal writes
// nothing; a success is read back and recorded.
import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directoryActivities } from '../../activities/gov-fr-directory';
import { today, type AnnuaireClient } from '../../integrations/annuaire/client';
import { createClients } from '../../integrations/clients';
import { loadConfig, type Config } from '../../platform/config';
import type { Db } from '../../platform/store/db';
import { insertEntry } from '../../platform/store/entries';
import { putMeta } from '../../platform/store/entry-meta';
import { createWorkspace } from '../../platform/store/workspaces';
import { startAnnuaireSimulator, type AnnuaireSimulator } from '../../simulators/annuaire';
import type { Faults } from '../../simulators/faults';
import type { StoredLine } from '../../simulators/annuaire/store';
import { INVOICING_ADDRESSES_META } from '../../domain/party/invoicing-addresses';
import type { StepInput } from '../../contract/journal';
import { makeSiren, party, siretOf } from '../../bin/stack/sample-parties';
import { freshDb, log } from '../support/harness';
import { approveMandate } from '../support/mandate';
import { coverageFaults, plusDays, resolveOn, type OracleLine } from '../support/directory-oracle';

const US = '0145';
const CASES = 100;
/** Past the last day a generated line starts or ends (5 days ago + 3 × (3 + 5)), and the latest switch day. */
const HORIZON = 25;

/** One address's lines: consecutive periods from 5 days ago, with gaps; the last may stay open. */
const history = fc.array(
  fc.record({
    gap: fc.nat({ max: 3 }),
    length: fc.option(fc.integer({ min: 1, max: 5 }), { freq: 3 }),
    platform: fc.constantFrom('9998', '0777', '0042'),
  }),
  { maxLength: 3 },
);
const FAULTY_CALLS = [
  'POST /ligne-annuaire',
  'PATCH /ligne-annuaire/id-instance:*',
  'DELETE /ligne-annuaire/id-instance:*',
  'GET /ligne-annuaire/id-instance:*',
  'POST /ligne-annuaire/recherche',
];
const fault: fc.Arbitrary<Faults | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.record({
    only: fc.constantFrom(...FAULTY_CALLS),
    status: fc.constant(503),
    count: fc.integer({ min: 1, max: 2 }),
  }),
  fc.record({
    only: fc.constantFrom(...FAULTY_CALLS),
    timeoutAfterWorkRate: fc.constant(1),
    timeoutMs: fc.constant(20),
    count: fc.constant(1),
  }),
  fc.record({ only: fc.constantFrom(...FAULTY_CALLS), loseResponses: fc.constant(true), count: fc.constant(1) }),
);
const scenario = fc.record({
  sirenLines: history,
  siretLines: history,
  step: fc.constantFrom('register', 'register', 'disable', 'update'),
  addresses: fc.constantFrom<('siren' | 'siret')[]>(['siren'], ['siren', 'siret'], ['siret']),
  start: fc.nat({ max: 3 }),
  consent: fc.option(fc.constantFrom('0777', '0042')),
  fault,
  crashAfter: fc.option(fc.integer({ min: 1, max: 6 })),
  /** Before a disable: another platform takes the SIREN over in that many days (the company is moving out). */
  movingOutIn: fc.option(fc.integer({ min: 1, max: 5 })),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer S> ? S : never;

/** The worker dying between two calls to the directory. */
class Crash extends Error {}
/** The client, with `around` wrapped about each call (given the call's number, from 1). */
function intercepted(
  client: AnnuaireClient,
  around: (n: number, call: () => Promise<unknown>) => Promise<unknown>,
): AnnuaireClient {
  let calls = 0;
  return new Proxy(client, {
    get(target, key) {
      const value = Reflect.get(target, key) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        around(++calls, async () => (value as (...a: unknown[]) => unknown).apply(target, args));
    },
  });
}
const crashing = (client: AnnuaireClient, after: number) =>
  intercepted(client, (n, call) => {
    if (n > after) throw new Crash(`crashed after ${after} calls`);
    return call();
  });
type Upset = 'a 503 before' | 'the answer lost after' | 'a crash after';

describe('directory step over generated layouts, faults and crashes', () => {
  let sim: AnnuaireSimulator;
  let db: Db;
  let drop: () => Promise<void>;
  let workspaceId: string;
  let config: Config;
  let client: AnnuaireClient;

  beforeAll(async () => {
    sim = await startAnnuaireSimulator({ host: '127.0.0.1', port: 0 });
    ({ db, drop } = await freshDb());
    workspaceId = (await createWorkspace(db, 'layouts')).id;
    config = loadConfig({
      DATA_DIR: path.join(os.tmpdir(), 'pa-test'),
      ANNUAIRE_URL: sim.url,
      PA_MATRICULE: US,
      ANNUAIRE_TIMEOUT_MS: '2000',
    });
    client = createClients(config).annuaire;
  });
  afterAll(async () => {
    await sim.close();
    await drop();
  });

  /** Runs a step as Temporal would: again after a crash or a retryable failure, until it ends. */
  async function toTheEnd<T>(step: (c: AnnuaireClient) => Promise<T>, firstClient: AnnuaireClient = client) {
    for (let attempt = 1; attempt <= 10; attempt++) {
      const c = attempt === 1 ? firstClient : client;
      try {
        return { done: await step(c), attempts: attempt };
      } catch (err) {
        if (err instanceof Crash || (err instanceof ApplicationFailure && !err.nonRetryable)) continue;
        return { failed: err as ApplicationFailure, attempts: attempt };
      }
    }
    throw new Error('the step did not end in 10 attempts');
  }

  function seed(siren: string, address: { siret?: string }, periods: Scenario['sirenLines']) {
    let day = -5;
    for (const p of periods) {
      day += p.gap;
      sim.seedLine({
        siren,
        ...address,
        matriculePlateforme: p.platform,
        dateDebutEffet: plusDays(today(), day),
        ...(p.length !== null && { dateFinEffet: plusDays(today(), day + p.length) }),
      });
      if (p.length === null) break;
      day += p.length;
    }
  }

  /** The first attempt's client with `upset` at its call number `k` (faults through the simulator, on the wire). */
  const upsetAt = (k: number, upset: Upset) =>
    intercepted(client, async (n, call) => {
      if (n !== k) return call();
      if (upset === 'a 503 before') sim.setFaults({ status: 503, count: 1 });
      if (upset === 'the answer lost after') sim.setFaults({ timeoutAfterWorkRate: 1, timeoutMs: 20, count: 1 });
      const answer = await call();
      if (upset === 'a crash after') throw new Crash(`crashed after call ${k}`);
      return answer;
    });

  async function runCase(
    s: Scenario,
    firstClient = s.crashAfter === null ? client : crashing(client, s.crashAfter),
  ): Promise<string> {
    const siren = makeSiren();
    const siret = siretOf(siren, '0001');
    const ids = { siren, siret: `${siren}_${siret}` };
    seed(siren, {}, s.sirenLines);
    seed(siren, { siret }, s.siretLines);
    await client.searchLines({ siren }); // a SIREN without a line of its own gets the default one now

    const entryId = crypto.randomUUID();
    await insertEntry(db, {
      id: entryId,
      workspaceId,
      docSchema: 'https://gobl.org/draft-0/org/party',
      data: party(siren),
      siren,
    });
    const stated = (which: ('siren' | 'siret')[], start?: string) => ({
      addresses: which.map((w) => (w === 'siren' ? {} : { siret })),
      ...(start && { start }),
    });
    const start = s.start > 0 ? plusDays(today(), s.start) : undefined;
    const first = s.step === 'update' ? ['siren' as const, 'siret' as const] : s.addresses;
    await putMeta(db, entryId, INVOICING_ADDRESSES_META, { src: 'api', value: stated(first, start) });
    await approveMandate(db, { entryId, ...(s.consent !== null && { formerMatricule: s.consent }) });
    const input: StepInput = { jobId: crypto.randomUUID(), workspaceId, entryId, stepId: 's1', config: {} };
    const acts = (c: AnnuaireClient) => directoryActivities({ db, log, config }, c);

    // Disable and update start from a registration carried out without faults.
    if (s.step !== 'register') {
      const registered = await toTheEnd((c) => acts(c).register(input));
      if (registered.failed) return 'skipped'; // a take-over refused: the register cases cover it
      if (s.step === 'disable' && s.movingOutIn !== null) {
        // Another platform takes the company over on that day: ours ends then, theirs starts.
        const day = plusDays(today(), s.movingOutIn);
        const ours = sim
          .lines()
          .find((l) => l.siren === siren && l.identifiantAdressage === siren && l.dateFinEffet === null);
        if (ours?.matriculePlateforme === US && ours.dateDebutEffet < day) {
          await client.endLine(ours.idInstance, day);
          await client.createLine({ siren, matriculePlateforme: '0777', dateDebutEffet: day });
        }
      }
      if (s.step === 'update')
        await putMeta(db, entryId, INVOICING_ADDRESSES_META, { src: 'api', value: stated(['siret'], start) });
    }
    const before = sim.lines().filter((l) => l.siren === siren);
    sim.setFaults(s.fault);
    const outcome = await toTheEnd<unknown>(
      (c) =>
        s.step === 'disable' ? acts(c).disable(input) : acts(c)[s.step === 'update' ? 'update' : 'register'](input),
      firstClient,
    );
    sim.setFaults(undefined);
    const after = sim.lines().filter((l) => l.siren === siren);
    const shown = `${JSON.stringify(s)}\nbefore ${show(before)}\nafter ${show(after)}`;

    if (outcome.failed) {
      // Refused: only a take-over without the consent to it, before anything is written.
      expect(outcome.failed.type, `${outcome.failed.message}\n${shown}`).toMatch(/^takeover-/);
      expect(outcome.failed.message).toMatch(/platform \d{4}(, \d{4})* \(line \d+ for \S+ from \d{4}-\d\d-\d\d/);
      // Nothing written, but for the fictive platform's lines over the SIREN's days left without one.
      const added = after.filter((l) => !before.some((b) => b.idInstance === l.idInstance));
      expect(show(after.filter((l) => !added.includes(l))), 'a refusal writes nothing').toEqual(show(before));
      expect(
        added.every((l) => l.matriculePlateforme === '9998' && l.identifiantAdressage === siren),
        shown,
      ).toBe(true);
      if (added.length > 0)
        expect(coverageFaults(oracle(before), oracle(after), siren, today(), 10), shown).toEqual([]);
      return 'refused';
    }
    expect(coverageFaults(oracle(before), oracle(after), siren, today(), HORIZON, Object.values(ids)), shown).toEqual(
      [],
    );
    for (const id of Object.values(ids)) {
      const ours = after.filter((l) => l.identifiantAdressage === id && l.matriculePlateforme === US && !l.masque);
      expect(ours.length, `${id}: lines of ours\n${shown}`).toBeLessThanOrEqual(1);
    }
    const on = start ?? today();
    const wanted = s.step === 'disable' ? [] : s.step === 'update' ? [ids.siret] : s.addresses.map((w) => ids[w]);
    // Worked out here from the request: what becomes ours is what is stated, and every address another platform
    // holds on or after the switch day (the mandate entrusts them all), but the one an update gives up.
    const dropped = s.step === 'update' ? [ids.siren] : [];
    const another = (l: StoredLine) => l.matriculePlateforme !== US && l.matriculePlateforme !== '9998';
    const takenOver =
      s.step === 'disable'
        ? []
        : Object.values(ids).filter(
            (id) =>
              wanted.includes(id) ||
              (!dropped.includes(id) &&
                before.some(
                  (l) =>
                    l.identifiantAdressage === id &&
                    another(l) &&
                    !l.masque &&
                    reachesAfter(l, on) &&
                    reachesAfter(l, today()),
                )),
          );
    // No line changes but those the request is about.
    for (const b of before) {
      const mayChange =
        s.step === 'disable'
          ? b.matriculePlateforme === US
          : takenOver.includes(b.identifiantAdressage) ||
            (b.matriculePlateforme === US && dropped.includes(b.identifiantAdressage));
      const a = after.find((l) => l.idInstance === b.idInstance)!;
      if (!mayChange)
        expect([a.dateFinEffet, a.masque], `line ${b.idInstance} unchanged\n${shown}`).toEqual([
          b.dateFinEffet,
          b.masque,
        ]);
    }
    for (let n = 0; n <= HORIZON; n++) {
      const day = plusDays(today(), n);
      for (const id of Object.values(ids)) {
        const [was, is] = [before, after].map((ls) => resolveOn(oracle(ls), id, day));
        if (day < on && !(was === undefined && is === '9998'))
          expect(is, `${id} on ${day}, before the switch day\n${shown}`).toBe(was);
        if (day >= on && takenOver.includes(id)) expect(ownLine(after, id, day), `${id} on ${day}\n${shown}`).toBe(US);
        if (s.step === 'disable') expect(ownLine(after, id, day), `${id} on ${day}\n${shown}`).not.toBe(US);
      }
    }
    const recorded = await db.query<{ address_id: string; read_back_at: Date | null; starts_on: Date | null }>(
      'SELECT address_id, read_back_at, starts_on FROM directory_lines WHERE entry_id = $1',
      [entryId],
    );
    expect(recorded.rows.map((r) => r.address_id).sort(), shown).toEqual(
      s.step === 'disable' ? [] : expect.arrayContaining(wanted),
    );
    for (const r of recorded.rows) expect(r.read_back_at, shown).not.toBeNull();
    return outcome.attempts > 1 ? 'done after retries' : 'done';
  }

  /** How many calls a step makes to the directory when nothing goes wrong. */
  async function callsOf(s: Scenario): Promise<number> {
    let calls = 0;
    const counted = intercepted(client, (n, call) => {
      calls = n;
      return call();
    });
    expect(await runCase(s, counted)).toMatch(/^done/);
    return calls;
  }

  it(`keeps every address reachable in ${CASES} generated cases`, { timeout: 120_000 }, async () => {
    const cases = fc.sample(scenario, { numRuns: CASES, seed: 41 });
    // Every kind of fault on every kind of call, and crashes, are among them.
    expect(new Set(cases.map((c) => c.fault?.only)).size).toBe(FAULTY_CALLS.length + 1);
    expect(cases.filter((c) => c.crashAfter !== null).length).toBeGreaterThan(CASES / 4);
    const tally: Record<string, number> = {};
    for (const c of cases) {
      const ended = await runCase(c);
      tally[ended] = (tally[ended] ?? 0) + 1;
    }
    // Enough of each ending for the judgement to mean something.
    expect(tally).toMatchObject({
      done: expect.any(Number),
      'done after retries': expect.any(Number),
      refused: expect.any(Number),
    });
    expect(tally['done after retries']).toBeGreaterThanOrEqual(10);
    expect((tally.done ?? 0) + (tally['done after retries'] ?? 0)).toBeGreaterThanOrEqual(40);
    expect(CASES - (tally.skipped ?? 0)).toBeGreaterThanOrEqual(50);
    console.log('directory layouts:', tally);
  });

  it.each(SWEEP)(
    '%s: with a 503 before, the answer lost after, a crash after each call',
    { timeout: 120_000 },
    async (_, s) => {
      const calls = await callsOf(s);
      const upsets: Upset[] = ['a 503 before', 'the answer lost after', 'a crash after'];
      expect(calls).toBeGreaterThanOrEqual(3);
      for (let k = 1; k <= calls; k++)
        for (const upset of upsets) expect(await runCase(s, upsetAt(k, upset)), `${upset} call ${k}`).toMatch(/^done/);
    },
  );
});

const base = {
  sirenLines: [],
  siretLines: [],
  start: 0,
  consent: null,
  fault: undefined,
  crashAfter: null,
  movingOutIn: null,
  addresses: ['siren'],
} satisfies Partial<Scenario>;
/** The layouts of the findings, and the other requests, each swept with every upset at every call. */
const SWEEP: [string, Scenario][] = [
  [
    'another platform from a later day, with consent (the High finding)',
    {
      ...base,
      step: 'register',
      consent: '0777',
      sirenLines: [
        { gap: 0, length: 8, platform: '9998' },
        { gap: 0, length: null, platform: '0777' },
      ],
    },
  ],
  [
    "a take-over on a later day where the former platform's line starts (the Medium finding), its SIRET too",
    {
      ...base,
      step: 'register',
      start: 2,
      consent: '0777',
      sirenLines: [
        { gap: 0, length: 7, platform: '0042' },
        { gap: 0, length: null, platform: '0777' },
      ],
      siretLines: [{ gap: 0, length: null, platform: '0777' }],
    },
  ],
  [
    "another platform's SIREN line from a later day, taken over with consent though only the SIRET is stated",
    {
      ...base,
      step: 'register',
      addresses: ['siret'],
      consent: '0777',
      sirenLines: [
        { gap: 0, length: 8, platform: '9998' },
        { gap: 0, length: null, platform: '0777' },
      ],
    },
  ],
  ['an update giving up the SIREN address for a SIRET', { ...base, step: 'update' }],
  ['leaving while another platform takes over in three days', { ...base, step: 'disable', movingOutIn: 3 }],
];

const oracle = (ls: StoredLine[]): OracleLine[] => ls.map((l) => ({ ...l, masked: l.masque === true }));
const show = (ls: StoredLine[]) =>
  JSON.stringify(
    ls.map((l) => [
      l.idInstance,
      l.identifiantAdressage.slice(10) || 'SIREN',
      l.matriculePlateforme,
      l.dateDebutEffet,
      l.dateFinEffet,
      l.masque ? 'masked' : '',
    ]),
  );
const reachesAfter = (l: StoredLine, day: string) => l.dateFinEffet === null || l.dateFinEffet > day;
/** The platform of the address's own line in force on the day. */
const ownLine = (ls: StoredLine[], id: string, day: string) =>
  ls.find(
    (l) =>
      l.identifiantAdressage === id &&
      !l.masque &&
      l.dateDebutEffet <= day &&
      (l.dateFinEffet === null || day < l.dateFinEffet),
  )?.matriculePlateforme;
