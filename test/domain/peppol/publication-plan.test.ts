// The Peppol step's plan (domain/peppol/publication-plan.ts): a few examples, then properties over generated cases —
// its actions, run against a small model of our records, the SML and the Directory, reach what the step asks, in the
// safe order, however often the step crashes and is retried, and a second run has nothing left to do.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  migrationCandidates,
  planPublication,
  wantsDirectory,
  wantsSml,
  type PublicationAction,
  type PublicationConfig,
  type PublicationInput,
  type PublicationRecord,
  type Visibility,
} from '../../../domain/peppol/publication-plan';

const IDS = [1, 2, 3, 4].map((i) => `iso6523-actorid-upis::0225:55203253${i}`);
const [A, B] = IDS as [string, string];
const REMOTE = new Set<PublicationAction['kind']>(['sml-create', 'sml-delete', 'directory-index', 'directory-remove']);

const cfg = (c: Partial<PublicationConfig> = {}): PublicationConfig => ({
  doc_groups: ['france'],
  visibility: 'smp+sml+peppol',
  directory: true,
  disable: false,
  ...c,
});
const rec = (participantId: string, r: Partial<PublicationRecord> = {}): PublicationRecord => ({
  participantId,
  enabled: true,
  visibility: 'smp+sml+peppol',
  directory: true,
  smlRegistered: true,
  directoryRegistered: true,
  directoryCard: 'card-1',
  ...r,
});
/** The actions as `kind id`, with the flags a mark writes. */
const steps = (input: Partial<PublicationInput>) =>
  planPublication({ wanted: [], records: [], migratedAway: new Set(), ...input }).actions.map((a) => {
    const who = a.participantId === A ? 'A' : a.participantId === B ? 'B' : a.participantId;
    if (a.kind !== 'mark') return `${a.kind} ${who}`;
    const flags = [
      a.smlRegistered !== undefined && `sml=${a.smlRegistered}`,
      a.directoryRegistered !== undefined && `dir=${a.directoryRegistered}`,
    ];
    return `mark ${who} ${flags.filter(Boolean).join(' ')}`;
  });

describe('publication plan: examples', () => {
  it('publishes a new participant: our record, the SML, then the Directory, each marked', () => {
    expect(steps({ wanted: [A], config: cfg() })).toEqual([
      'upsert A',
      'sml-create A',
      'mark A sml=true',
      'directory-index A',
      'mark A dir=true',
    ]);
    expect(steps({ wanted: [A], config: cfg({ visibility: 'smp' }) })).toEqual(['upsert A']);
  });

  it('does not redo what the record says is done', () => {
    expect(steps({ wanted: [A], records: [rec(A)], config: cfg() })).toEqual(['upsert A']);
    expect(steps({ wanted: [A], records: [rec(A, { directoryRegistered: false })], config: cfg() })).toEqual([
      'upsert A',
      'directory-index A',
      'mark A dir=true',
    ]);
  });

  it('has the Directory index a card again once it changed (a company renamed), and only then', () => {
    const indexed = rec(A, { directoryCard: 'card-1' });
    expect(steps({ wanted: [A], records: [indexed], config: cfg(), card: 'card-1' })).toEqual(['upsert A']);
    const renamed = planPublication({
      wanted: [A],
      records: [indexed],
      migratedAway: new Set(),
      config: cfg(),
      card: 'card-2',
    }).actions;
    expect(renamed).toEqual([
      expect.objectContaining({ kind: 'upsert' }),
      { kind: 'directory-index', participantId: A },
      { kind: 'mark', participantId: A, directoryRegistered: true, directoryCard: 'card-2' },
    ]);
    // Indexed before cards were kept: once more, then kept.
    expect(steps({ wanted: [A], records: [rec(A, { directoryCard: null })], config: cfg(), card: 'card-1' })).toEqual([
      'upsert A',
      'directory-index A',
      'mark A dir=true',
    ]);
    // Out of the Directory, a card changes nothing.
    expect(
      steps({
        wanted: [A],
        records: [rec(A, { directoryRegistered: false })],
        config: cfg({ directory: false }),
        card: 'card-2',
      }),
    ).toEqual(['upsert A']);
  });

  it('narrowing a visibility withdraws the Directory, then the SML', () => {
    expect(steps({ wanted: [A], records: [rec(A)], config: cfg({ visibility: 'smp' }) })).toEqual([
      'upsert A',
      'directory-remove A',
      'mark A dir=false',
      'sml-delete A',
      'mark A sml=false',
    ]);
    expect(steps({ wanted: [A], records: [rec(A)], config: cfg({ directory: false }) })).toEqual([
      'upsert A',
      'directory-remove A',
      'mark A dir=false',
    ]);
  });

  it('withdraws an ended address first: Directory, SML, then our record', () => {
    expect(steps({ wanted: [A], records: [rec(A), rec(B)], config: cfg() })).toEqual([
      'directory-remove B',
      'sml-delete B',
      'disable B',
      'upsert A',
    ]);
  });

  it('withdraws what the visibility may have put there though the record does not say it (a lost answer)', () => {
    // Indexing follows the SML's mark: with the SML marked, the Directory may hold it; without, only the SML may.
    const indexedUnsure = rec(A, { smlRegistered: true, directoryRegistered: false });
    expect(steps({ records: [indexedUnsure] })).toEqual(['directory-remove A', 'sml-delete A', 'disable A']);
    const createdUnsure = rec(A, { smlRegistered: false, directoryRegistered: false });
    expect(steps({ records: [createdUnsure] })).toEqual(['sml-delete A', 'disable A']);
    expect(
      steps({ records: [rec(A, { visibility: 'smp', smlRegistered: false, directoryRegistered: false })] }),
    ).toEqual(['disable A']);
    expect(steps({ records: [rec(A, { enabled: false, smlRegistered: false, directoryRegistered: false })] })).toEqual(
      [],
    );
  });

  it('disable: true withdraws every participant, whatever is wanted', () => {
    const input = { wanted: [A, B], records: [rec(A)], config: cfg({ disable: true }) };
    expect(steps(input)).toEqual(['directory-remove A', 'sml-delete A', 'disable A']);
    expect(planPublication({ ...input, migratedAway: new Set() }).withdrawn).toEqual([A]);
  });

  it('leaves the SML and the Directory of a participant that migrated away to its new provider', () => {
    const migratedAway = new Set([A]);
    expect(steps({ records: [rec(A)], migratedAway })).toEqual(['migrated A', 'disable A']);
    // Wanted again: no longer published anywhere for us, its SML creation meets the other SMP (the activity's part).
    expect(steps({ wanted: [A], records: [rec(A)], migratedAway, config: cfg() })).toEqual([
      'upsert A',
      'migrated A',
      'mark A sml=false dir=false',
      'sml-create A',
      'mark A sml=true',
      'directory-index A',
      'mark A dir=true',
    ]);
    expect(steps({ wanted: [A], records: [rec(A)], migratedAway, config: cfg({ visibility: 'smp' }) })).toEqual([
      'upsert A',
      'migrated A',
      'mark A sml=false dir=false',
    ]);
  });

  it('asks about migrations only for participants the SML may hold for us', () => {
    const records = [
      rec(A, { smlRegistered: false, directoryRegistered: false }), // wanted, not at the SML
      rec(B, { visibility: 'smp+sml', smlRegistered: false, directoryRegistered: false }), // withdrawn, may be there
      rec(IDS[2]!, { visibility: 'smp', smlRegistered: false, directoryRegistered: false }), // withdrawn, not there
      rec(IDS[3]!, { enabled: false, smlRegistered: false, directoryRegistered: false }), // disabled
    ];
    expect(migrationCandidates({ wanted: [A], records, config: cfg() })).toEqual([B]);
    expect(migrationCandidates({ wanted: [A], records: [rec(A)], config: cfg() })).toEqual([A]);
    expect(migrationCandidates({ wanted: [A], records: [rec(A)] })).toEqual([A]); // unregistration: withdrawn
  });
});

// A small model of what the step reads and writes: the entry's records, the SML (who holds each participant), the
// Directory (whose business card it lists), our prepared migrations.
type Holder = 'ours' | 'other';
interface World {
  records: Map<string, PublicationRecord>;
  sml: Map<string, Holder>;
  directory: Map<string, Holder>;
  /** Our migration records (platform/store/peppol-migrations.ts): kept once done, with `migrated` set. */
  prepared: Set<string>;
  migrated: Set<string>;
  /** Migrations we prepared at the SML, not done yet. */
  pending: Set<string>;
}
const emptyWorld = (): World => ({
  records: new Map(),
  sml: new Map(),
  directory: new Map(),
  prepared: new Set(),
  migrated: new Set(),
  pending: new Set(),
});
const clone = (w: World): World => ({
  records: new Map([...w.records].map(([k, r]) => [k, { ...r }])),
  sml: new Map(w.sml),
  directory: new Map(w.directory),
  prepared: new Set(w.prepared),
  migrated: new Set(w.migrated),
  pending: new Set(w.pending),
});

type Step = { kind: 'register'; wanted: string[]; config: PublicationConfig } | { kind: 'unregister' };

/** What the activity reads, then the plan. */
function planFor(w: World, step: Step) {
  const read = {
    wanted: step.kind === 'register' ? step.wanted : [],
    records: [...w.records.values()],
    ...(step.kind === 'register' && { config: step.config }),
  };
  const migratedAway = new Set(
    migrationCandidates(read).filter((id) => w.prepared.has(id) && w.sml.get(id) !== 'ours'),
  );
  return { migratedAway, ...planPublication({ ...read, migratedAway }) };
}

/** One action, as the activity and the remotes do it (the company has set a migration key where one is needed). */
function apply(w: World, a: PublicationAction): void {
  const id = a.participantId;
  const r = w.records.get(id);
  switch (a.kind) {
    case 'upsert':
      w.records.set(id, {
        participantId: id,
        enabled: true,
        visibility: a.visibility,
        directory: a.directory,
        smlRegistered: r?.smlRegistered ?? false,
        directoryRegistered: r?.directoryRegistered ?? false,
        directoryCard: r?.directoryCard ?? null,
      });
      return;
    case 'sml-create': // created, "already exists" ours, or migrated from the other SMP with the key
      w.sml.set(id, 'ours');
      return;
    case 'sml-delete': // another SMP's or gone: nothing to do; the SML forgets a pending migration, and so do we
      if (w.sml.get(id) === 'ours') w.sml.delete(id);
      w.pending.delete(id);
      if (!w.migrated.has(id)) w.prepared.delete(id);
      return;
    case 'directory-index':
      w.directory.set(id, 'ours');
      return;
    case 'directory-remove':
      w.directory.delete(id);
      return;
    case 'mark':
      if (!r) throw new Error(`mark of ${id} without a record`);
      if (a.smlRegistered !== undefined) r.smlRegistered = a.smlRegistered;
      if (a.directoryRegistered !== undefined) r.directoryRegistered = a.directoryRegistered;
      if (a.directoryRegistered === false) r.directoryCard = null;
      if (a.directoryCard !== undefined) r.directoryCard = a.directoryCard;
      return;
    case 'migrated':
      if (w.prepared.has(id)) w.migrated.add(id);
      return;
    case 'disable':
      if (r)
        Object.assign(r, { enabled: false, smlRegistered: false, directoryRegistered: false, directoryCard: null });
      return;
  }
}

/** What must hold at every moment: the SML points only at what our SMP serves, the Directory only at the SML's. */
function checkSafe(w: World, after: string): void {
  for (const [id, holder] of w.sml)
    if (holder === 'ours') expect(w.records.get(id)?.enabled, `SML without our record, ${after}`).toBe(true);
  for (const [id, holder] of w.directory)
    if (holder === 'ours') expect(w.sml.get(id), `Directory without the SML, ${after}`).toBe('ours');
}

/** The order within one plan, per participant. */
function checkOrder(actions: PublicationAction[]): void {
  const at = (kind: PublicationAction['kind'], id: string) =>
    actions.findIndex((a) => a.kind === kind && a.participantId === id);
  const before = (x: number, y: number, what: string) => {
    if (x >= 0 && y >= 0) expect(x, what).toBeLessThan(y);
  };
  for (const id of IDS) {
    before(at('directory-remove', id), at('sml-delete', id), 'Directory removal before SML deletion');
    before(at('sml-delete', id), at('disable', id), 'SML deletion before disabling');
    before(at('directory-remove', id), at('disable', id), 'Directory removal before disabling');
    before(at('upsert', id), at('sml-create', id), 'our record before the SML');
    before(at('sml-create', id), at('directory-index', id), 'the SML before the Directory');
    if (at('upsert', id) >= 0) expect(at('disable', id), 'published and withdrawn').toBe(-1);
  }
}

/**
 * Runs a step as Temporal does: an attempt crashes after `crashes[n]` actions (the remote call made, maybe not its
 * mark), the next reads again and plans again, until one completes — or, `givenUp`, none does after the crashes
 * (the retries ran out). Returns what its first attempt planned and what the attempts did to whom.
 */
function runStep(w: World, step: Step, crashes: number[], opts: { givenUp?: boolean; safe?: boolean } = {}) {
  const touched: { action: PublicationAction; holder: Holder | undefined }[] = [];
  const first = planFor(w, step);
  for (let attempt = 0; !opts.givenUp || attempt < crashes.length; attempt++) {
    const { actions } = attempt === 0 ? first : planFor(w, step);
    checkOrder(actions);
    const stop = crashes[attempt] ?? actions.length;
    for (const a of actions.slice(0, stop)) {
      touched.push({ action: a, holder: w.sml.get(a.participantId) });
      apply(w, a);
      if (opts.safe !== false) checkSafe(w, `after ${a.kind} of ${a.participantId}`);
    }
    if (stop >= actions.length) break;
  }
  return { first, touched };
}

type Event =
  | { kind: 'step'; step: Step; crashes: number[] }
  /** The API prepares the migration of a participant of ours at the SML (a record at the SML: api/peppol/). */
  | { kind: 'prepare'; id: string }
  /** The new SMP migrates it with the key; the Directory follows the SML to its business card. */
  | { kind: 'new-smp-migrates'; id: string }
  /** Both at once. */
  | { kind: 'leaves'; id: string }
  /** The API's GET of the migration finds it done: our record disabled. */
  | { kind: 'api-look'; id: string }
  /** Another SMP registers at the SML a participant it does not hold (inbound, later migrated with a key). */
  | { kind: 'other-smp-registers'; id: string };

/** The participant an event names, or the next one it may happen to (so that most events do happen). */
function whom(w: World, e: Exclude<Event, { kind: 'step' }>): string | undefined {
  const may = (id: string): boolean => {
    const r = w.records.get(id);
    switch (e.kind) {
      case 'prepare':
      case 'leaves':
        return !!r?.enabled && r.smlRegistered && w.sml.get(id) === 'ours';
      case 'new-smp-migrates':
        return w.pending.has(id);
      case 'api-look':
        return w.prepared.has(id) && !w.migrated.has(id) && w.sml.get(id) !== 'ours';
      case 'other-smp-registers':
        return !w.sml.has(id);
    }
  };
  const from = IDS.indexOf(e.id);
  return [...IDS.slice(from), ...IDS.slice(0, from)].find(may);
}

function happen(w: World, e: Event): void {
  if (e.kind === 'step') return void runStep(w, e.step, e.crashes);
  const id = whom(w, e);
  if (id === undefined) return;
  const r = w.records.get(id);
  if (e.kind === 'prepare' || e.kind === 'leaves') {
    w.prepared.add(id);
    w.pending.add(id);
    w.migrated.delete(id);
  }
  if (e.kind === 'new-smp-migrates' || e.kind === 'leaves') {
    w.pending.delete(id);
    w.sml.set(id, 'other');
    if (w.directory.has(id)) w.directory.set(id, 'other');
  }
  if (e.kind === 'api-look') {
    if (r) Object.assign(r, { enabled: false, smlRegistered: false, directoryRegistered: false });
    w.migrated.add(id);
  }
  if (e.kind === 'other-smp-registers') {
    w.sml.set(id, 'other');
    w.directory.set(id, 'other');
  }
}

const visibility = fc.constantFrom<Visibility>('smp', 'smp+sml', 'smp+sml+peppol');
const config = fc.record({
  doc_groups: fc.constant(['france']),
  visibility,
  directory: fc.boolean(),
  disable: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
});
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('register' as const), wanted: fc.shuffledSubarray(IDS), config }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unregister' as const) }) },
);
const crashes = fc.array(fc.nat(12), { maxLength: 3 });
const id = fc.constantFrom(...IDS);
const eventArb: fc.Arbitrary<Event> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('step' as const), step: stepArb, crashes }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('prepare' as const), id }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('new-smp-migrates' as const), id }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('leaves' as const), id }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('api-look' as const), id }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('other-smp-registers' as const), id }) },
);

describe('publication plan: properties', () => {
  it('a step reaches what it asks, in the safe order, retried after any crash; running it again does nothing remote', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 10 }), stepArb, crashes, (history, step, stepCrashes) => {
        const w = emptyWorld();
        for (const e of history) happen(w, e);
        const before = clone(w);
        const { first, touched } = runStep(w, step, stepCrashes);

        const asked = step.kind === 'register' && !step.config.disable ? step : undefined;
        const wanted = new Set(asked?.wanted);
        for (const id of wanted) {
          const c = asked!.config;
          expect(w.records.get(id)).toMatchObject({
            enabled: true,
            visibility: c.visibility,
            directory: c.directory,
            smlRegistered: wantsSml(c.visibility),
            directoryRegistered: wantsDirectory(c),
          });
          expect(w.sml.get(id) === 'ours', `${id} at the SML`).toBe(wantsSml(c.visibility));
          expect(w.directory.get(id) === 'ours', `${id} in the Directory`).toBe(wantsDirectory(c));
        }
        const withdrawn = [...before.records.values()].filter((r) => r.enabled && !wanted.has(r.participantId));
        expect(first.withdrawn).toEqual(withdrawn.map((r) => r.participantId));
        for (const r of before.records.values()) {
          if (wanted.has(r.participantId)) continue;
          const id = r.participantId;
          expect(w.records.get(id)!.enabled, `${id} disabled`).toBe(false);
          expect(w.sml.get(id), `${id} not ours at the SML`).not.toBe('ours');
          expect(w.directory.get(id), `${id} not ours in the Directory`).not.toBe('ours');
          if (first.migratedAway.has(id)) {
            // Its new provider's at the SML and the Directory: untouched, the migration recorded as done.
            expect(touched.filter((t) => t.action.participantId === id && REMOTE.has(t.action.kind))).toEqual([]);
            expect(w.sml.get(id)).toBe(before.sml.get(id));
            expect(w.directory.get(id)).toBe(before.directory.get(id));
            expect(w.migrated.has(id)).toBe(true);
          }
        }
        // What another SMP holds at the SML is never withdrawn by us, at the SML or the Directory.
        for (const t of touched)
          if (t.action.kind === 'sml-delete' || t.action.kind === 'directory-remove')
            expect(t.holder).not.toBe('other');

        const again = planFor(w, step);
        expect(again.actions.filter((a) => a.kind !== 'upsert')).toEqual([]);
        expect(again.withdrawn).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });

  // A step given up (its retries ran out) may leave the SML or the Directory holding what our record does not say
  // (an answer lost), or not holding what it says (a withdrawal cut short before its `disable`). A withdrawal
  // removes whatever the record's visibility may have put there. A publication goes by the record's flags only
  // (kept as it was): it neither withdraws such a leftover under a narrower visibility nor re-creates what a
  // cut-short withdrawal removed, and the order's guarantees may not hold for them: only withdrawals are checked.
  it('after a step given up, the next still withdraws every participant it does not want', () => {
    const givenUp = fc.record({ step: stepArb, crashes: fc.array(fc.nat(12), { minLength: 1, maxLength: 3 }) });
    fc.assert(
      fc.property(
        fc.array(eventArb, { maxLength: 6 }),
        givenUp,
        stepArb,
        crashes,
        (history, gave, step, stepCrashes) => {
          const w = emptyWorld();
          for (const e of history) happen(w, e);
          runStep(w, gave.step, gave.crashes, { givenUp: true });
          const before = clone(w);
          runStep(w, step, stepCrashes, { safe: false });

          const wanted = new Set(step.kind === 'register' && !step.config.disable ? step.wanted : []);
          for (const id of wanted) expect(w.records.get(id)?.enabled).toBe(true);
          for (const r of before.records.values()) {
            if (wanted.has(r.participantId)) continue;
            expect(w.records.get(r.participantId)!.enabled).toBe(false);
            expect(w.sml.get(r.participantId), `${r.participantId} not ours at the SML`).not.toBe('ours');
            expect(w.directory.get(r.participantId), `${r.participantId} not in the Directory`).not.toBe('ours');
          }
          expect(planFor(w, step).actions.filter((a) => a.kind !== 'upsert')).toEqual([]);
        },
      ),
      { numRuns: 1000 },
    );
  });

  const recordArb = (participantId: string) =>
    fc.record({
      participantId: fc.constant(participantId),
      enabled: fc.boolean(),
      visibility,
      directory: fc.boolean(),
      smlRegistered: fc.boolean(),
      directoryRegistered: fc.boolean(),
      directoryCard: fc.constantFrom(null, 'card-1'),
    });
  const anyInput: fc.Arbitrary<PublicationInput> = fc
    .record({
      records: fc.shuffledSubarray(IDS).chain((ids) => fc.tuple(...ids.map(recordArb))),
      wanted: fc.shuffledSubarray(IDS),
      migratedAway: fc.subarray(IDS).map((ids) => new Set(ids)),
      config: fc.option(config, { nil: undefined }),
    })
    .map(({ config, ...rest }) => ({ ...rest, ...(config && { config }) }));

  it('from any records: the safe order, withdrawals complete, every remote publication marked, then nothing left', () => {
    fc.assert(
      fc.property(anyInput, (input) => {
        const plan = planPublication(input);
        checkOrder(plan.actions);
        const publishing = input.config !== undefined && !input.config.disable;
        const wanted = new Set(publishing ? input.wanted : []);
        const acted = new Set(plan.actions.map((a) => a.participantId));
        const withdrawn = input.records.filter((r) => r.enabled && !wanted.has(r.participantId));
        expect(plan.withdrawn).toEqual(withdrawn.map((r) => r.participantId));
        expect([...acted].sort()).toEqual([...wanted, ...plan.withdrawn].sort());
        const candidates = new Set(migrationCandidates(input));
        for (const r of withdrawn) {
          const mine = plan.actions.filter((a) => a.participantId === r.participantId).map((a) => a.kind);
          expect(mine.at(-1)).toBe('disable');
          if (candidates.has(r.participantId) && input.migratedAway.has(r.participantId))
            expect(mine).toEqual(['migrated', 'disable']);
          else expect(mine).not.toContain('migrated');
        }
        plan.actions.forEach((a, i) => {
          if (REMOTE.has(a.kind) && wanted.has(a.participantId))
            expect(plan.actions[i + 1]).toMatchObject({ kind: 'mark', participantId: a.participantId });
        });
        // Applied to the records, a plan made again finds nothing to do but our records' upserts.
        const w = emptyWorld();
        for (const r of input.records) w.records.set(r.participantId, { ...r });
        for (const a of plan.actions) apply(w, a);
        const recreated = new Set(plan.actions.filter((a) => a.kind === 'sml-create').map((a) => a.participantId));
        const again = planPublication({
          ...input,
          records: [...w.records.values()],
          migratedAway: new Set([...input.migratedAway].filter((id) => !recreated.has(id))),
        });
        expect(again.actions.filter((a) => a.kind !== 'upsert')).toEqual([]);
      }),
      { numRuns: 1000 },
    );
  });
});
