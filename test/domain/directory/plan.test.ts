// The directory plan over generated layouts: any lines of any platforms at the four address levels, past, in force
// and to come, and any request. Its writes must pass the PPF's checks, and after them every address that resolved to a
// platform still does, the SIREN has a line every day, no lines overlap; a request met once needs no write again.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FICTIVE_PLATFORM, type Addressing, type Line } from '../../../domain/directory/lines';
import { planDirectory, type DirectoryRequest, type Write } from '../../../domain/directory/plan';
import { coverageFaults, plusDays, resolveOn, type OracleLine } from '../../support/directory-oracle';

const US = '0145';
const TODAY = '2026-11-27';
const SIREN = '712345602';
const SIRET = `${SIREN}00011`;
const ADDRESSES: Addressing[] = [
  { address: SIREN, siren: SIREN },
  { address: `${SIREN}_${SIRET}`, siren: SIREN, siret: SIRET },
  { address: `${SIREN}_${SIRET}_SERVICE1`, siren: SIREN, siret: SIRET, routingId: 'SERVICE1' },
  { address: `${SIREN}_${SIREN}00029`, siren: SIREN, siret: `${SIREN}00029` },
  { address: `${SIREN}_FACTURES`, siren: SIREN, suffix: 'FACTURES' },
];
const PLATFORMS = [US, FICTIVE_PLATFORM, '0777', '0042'];
/** Past the last day a generated line starts or ends (6 days ago + 4 × (3 + 6)), and the latest switch day. */
const HORIZON = 36;

/** One address's history: consecutive periods from 6 days ago, with gaps, the last one possibly open. */
const history = fc.array(
  fc.record({
    gap: fc.nat({ max: 3 }),
    length: fc.option(fc.integer({ min: 1, max: 6 }), { freq: 3 }),
    platform: fc.constantFrom(...PLATFORMS),
  }),
  { maxLength: 4 },
);

const layout = fc.tuple(...ADDRESSES.map(() => history)).map((histories) => {
  const lines: Line[] = [];
  histories.forEach((periods, i) => {
    let day = -6;
    for (const p of periods) {
      day += p.gap;
      const start = plusDays(TODAY, day);
      const end = p.length === null ? null : plusDays(TODAY, day + p.length);
      lines.push({ ...ADDRESSES[i]!, idInstance: lines.length + 1, platform: p.platform, start, end });
      if (p.length === null) break;
      day += p.length;
    }
  });
  return lines;
});

const someAddresses = fc.subarray(ADDRESSES, { minLength: 1 });
const request: fc.Arbitrary<DirectoryRequest> = fc.oneof(
  fc
    .record({
      wanted: someAddresses,
      more: fc.subarray(ADDRESSES),
      all: fc.boolean(),
      on: fc.nat({ max: 6 }),
      consent: fc.option(fc.constantFrom('0777', '0042')),
      consentSetAfterSigning: fc.boolean(),
      dropped: fc.subarray(ADDRESSES),
    })
    .map(({ wanted, more, all, on, consent, consentSetAfterSigning, dropped }) => {
      const scope = [...wanted, ...more].map((a) => a.address);
      return {
        kind: 'hold' as const,
        siren: SIREN,
        on: plusDays(TODAY, on),
        wanted,
        entrusted: (a: Addressing) => all || scope.includes(a.address),
        ...(consent !== null && { consent }),
        consentSetAfterSigning,
        dropped: dropped.map((a) => a.address),
      };
    }),
  fc.nat({ max: 6 }).map((on) => ({ kind: 'release' as const, siren: SIREN, on: plusDays(TODAY, on) })),
);

const oracle = (l: Line & { masked?: boolean }): OracleLine => ({
  idInstance: l.idInstance,
  identifiantAdressage: l.address,
  siren: l.siren,
  matriculePlateforme: l.platform,
  dateDebutEffet: l.start,
  dateFinEffet: l.end,
  ...(l.masked && { masked: true }),
});

/** The writes carried out under the directory's checks (the simulator's rules); throws on one it would refuse. */
function carryOut(lines: Line[], writes: Write[]): (Line & { masked?: boolean })[] {
  const state: (Line & { masked?: boolean })[] = lines.map((l) => ({ ...l }));
  const clash = (l: Pick<Line, 'address' | 'start' | 'end'>, except?: number) =>
    state.find(
      (o) =>
        !o.masked &&
        o.idInstance !== except &&
        o.address === l.address &&
        (o.end === null || l.start < o.end) &&
        (l.end === null || o.start < l.end) &&
        (o.end === null || o.end > o.start) &&
        (l.end === null || l.end > l.start),
    );
  for (const w of writes) {
    if (w.kind === 'create') {
      if (w.line.start < TODAY) throw new Error(`create starting in the past: ${w.line.start}`);
      if (w.line.end !== null && w.line.end <= w.line.start) throw new Error('create ending before it starts');
      const c = clash(w.line);
      if (c) throw new Error(`create ${w.line.address} ${w.line.start}–${w.line.end} overlaps line ${c.idInstance}`);
      state.push({ ...w.line, idInstance: 1000 + state.length });
      continue;
    }
    const line = state.find((l) => l.idInstance === w.line.idInstance)!;
    if (w.kind === 'mask') {
      if (line.start <= TODAY) throw new Error(`mask of line ${line.idInstance}, in force since ${line.start}`);
      line.masked = true;
      continue;
    }
    if (line.end !== null && line.end < TODAY) throw new Error(`end of closed line ${line.idInstance}`);
    if (w.on < TODAY || w.on < line.start) throw new Error(`end of line ${line.idInstance} on ${w.on}`);
    line.end = w.on;
    const c = clash(line, line.idInstance);
    if (c) throw new Error(`end of ${line.idInstance} overlaps ${c.idInstance}`);
  }
  return state;
}

const visible = (ls: (Line & { masked?: boolean })[]) => ls.filter((l) => !l.masked);
const reachesDay = (l: Line, day: string) => l.end === null || l.end > day;
const everInForce = (l: Line) => l.end === null || l.end > l.start;

/** Other platforms' lines at these addresses on or after `on` (neither ours nor the fictive platform's). */
const othersAt = (lines: Line[], ids: string[], on: string) =>
  lines.filter(
    (l) =>
      ids.includes(l.address) &&
      l.platform !== US &&
      l.platform !== FICTIVE_PLATFORM &&
      reachesDay(l, on) &&
      everInForce(l),
  );

/** What a hold asks to become ours, worked out here from the request: stated, or another's within the mandate. */
function takenOverBy(lines: Line[], req: Extract<DirectoryRequest, { kind: 'hold' }>): string[] {
  return ADDRESSES.filter(
    (a) =>
      req.wanted.some((w) => w.address === a.address) ||
      (req.entrusted(a) && !req.dropped.includes(a.address) && othersAt(lines, [a.address], req.on).length > 0),
  ).map((a) => a.address);
}

/**
 * What must hold after a request is met: every address reachable, the SIREN covered, no overlap (coverageFaults);
 * no line changed but those the request is about; before the switch day no address resolves differently (but a day
 * the SIREN had no line, now on 9998); from it, the addresses taken over are ours by their own line, and after a
 * release none is.
 */
function judge(before: Line[], after: (Line & { masked?: boolean })[], req: DirectoryRequest): string[] {
  const ids = ADDRESSES.map((a) => a.address);
  const faults = coverageFaults(before.map(oracle), visible(after).map(oracle), SIREN, TODAY, HORIZON, ids);
  const ours = req.kind === 'hold' ? takenOverBy(before, req) : [];
  const dropped = req.kind === 'hold' ? req.dropped : [];
  const mayChange = (l: Line) =>
    req.kind === 'hold'
      ? ours.includes(l.address) || (l.platform === US && dropped.includes(l.address))
      : l.platform === US;
  for (const b of before) {
    const a = after.find((l) => l.idInstance === b.idInstance)!;
    if (!mayChange(b) && (a.end !== b.end || a.masked))
      faults.push(`line ${b.idInstance} of ${b.platform} at ${b.address} changed`);
  }
  for (let n = 0; n <= HORIZON; n++) {
    const day = plusDays(TODAY, n);
    for (const id of ids) {
      const was = resolveOn(before.map(oracle), id, day);
      const is = resolveOn(visible(after).map(oracle), id, day);
      const own = visible(after).find((l) => l.address === id && l.start <= day && reachesDay(l, day))?.platform;
      if (day < req.on && was !== is && !(was === undefined && is === FICTIVE_PLATFORM))
        faults.push(`${id} on ${day}, before the switch day: ${was} then ${is}`);
      if (day >= req.on && ours.includes(id) && own !== US) faults.push(`${id} on ${day}: ${own}, not ours`);
      if (day >= req.on && req.kind === 'release' && own === US) faults.push(`${id} on ${day}: still ours`);
    }
  }
  return faults;
}

describe('directory plan', () => {
  it('keeps every address reachable, changes only what it is asked to, and a retry after any write ends the same', () => {
    fc.assert(
      fc.property(layout, request, fc.nat(), (lines, req, interruption) => {
        const outcome = planDirectory({ us: US, today: TODAY, lines, request: req });
        if ('refused' in outcome) {
          // Refused only for a take-over the signed mandate does not consent to.
          expect(req.kind).toBe('hold');
          if (req.kind !== 'hold') return;
          const holders = new Set(othersAt(lines, takenOverBy(lines, req), req.on).map((l) => l.platform));
          expect(holders.size).toBeGreaterThan(0);
          expect(holders.size === 1 && req.consent !== undefined && holders.has(req.consent)).toBe(false);
          expect(outcome.refused.message).toMatch(/platform \d{4}.*from \d{4}-\d\d-\d\d/);
          return;
        }
        if (req.kind === 'hold') {
          // Not refused: whatever other platform's lines it takes over, the signed mandate consents to leaving it.
          const holders = new Set(othersAt(lines, takenOverBy(lines, req), req.on).map((l) => l.platform));
          if (holders.size > 0) expect([...holders]).toEqual([req.consent]);
        }
        const after = carryOut(lines, outcome.plan.writes);
        expect(judge(lines, after, req)).toEqual([]);
        // Met once, the same request needs no more writes.
        const again = planDirectory({ us: US, today: TODAY, lines: visible(after), request: req });
        expect('plan' in again && again.plan.writes).toEqual([]);

        // Interrupted after any of its writes, then planned again from what the directory holds — with the first
        // plan's targets among those wanted, as the step keeps them — it ends where it would have.
        const k = interruption % (outcome.plan.writes.length + 1);
        const partial = carryOut(lines, outcome.plan.writes.slice(0, k));
        const retried = planDirectory({
          us: US,
          today: TODAY,
          lines: visible(partial),
          request: req.kind === 'hold' ? { ...req, wanted: [...req.wanted, ...outcome.plan.targets] } : req,
        });
        if (!('plan' in retried))
          throw new Error(`the retry after ${k} writes was refused: ${retried.refused.message}`);
        const finished = carryOut(partial, retried.plan.writes);
        expect(judge(lines, finished, req)).toEqual([]);
        for (let n = 0; n <= HORIZON; n++)
          for (const a of ADDRESSES) {
            const day = plusDays(TODAY, n);
            const [ended, expected] = [finished, after].map((s) => resolveOn(visible(s).map(oracle), a.address, day));
            if (ended !== expected)
              throw new Error(`${a.address} on ${day}: ${ended} after a retry, ${expected} without`);
          }
      }),
      { numRuns: 6000 },
    );
  });

  it('the High finding: another platform from a later day and no consent: refused, naming it, its dates', () => {
    const lines: Line[] = [
      { ...ADDRESSES[0]!, idInstance: 17, platform: FICTIVE_PLATFORM, start: '2024-09-01', end: '2026-12-01' },
      { ...ADDRESSES[0]!, idInstance: 18, platform: '0777', start: '2026-12-01', end: null },
    ];
    const hold = { kind: 'hold' as const, siren: SIREN, on: TODAY, wanted: [ADDRESSES[0]!], dropped: [] };
    const refused = planDirectory({ us: US, today: TODAY, lines, request: { ...hold, entrusted: () => true } });
    expect(refused).toEqual({
      refused: {
        code: 'takeover-identifier-missing',
        message: expect.stringContaining('platform 0777 (line 18 for 712345602 from 2026-12-01)'),
      },
    });
    // With the company's consent to leave 0777: its line, not yet in force, is cancelled; 9998 hands over today.
    const outcome = planDirectory({
      us: US,
      today: TODAY,
      lines,
      request: { ...hold, entrusted: () => true, consent: '0777' },
    });
    expect('plan' in outcome && outcome.plan.writes.map((w) => [w.kind, 'on' in w ? w.on : w.line.start])).toEqual([
      ['end', TODAY],
      ['mask', '2026-12-01'],
      ['create', TODAY],
    ]);
  });

  it('the Medium finding: a take-over whose former line starts on the switch day cancels it', () => {
    const on = plusDays(TODAY, 3);
    const lines: Line[] = [
      { ...ADDRESSES[0]!, idInstance: 1, platform: '0042', start: '2026-01-01', end: on },
      { ...ADDRESSES[0]!, idInstance: 2, platform: '0777', start: on, end: null },
    ];
    const outcome = planDirectory({
      us: US,
      today: TODAY,
      lines,
      request: {
        kind: 'hold',
        siren: SIREN,
        on,
        wanted: [ADDRESSES[0]!],
        entrusted: () => true,
        consent: '0777',
        dropped: [],
      },
    });
    expect('plan' in outcome && outcome.plan.writes.map((w) => w.kind)).toEqual(['mask', 'create']);
  });

  it('leaving while another platform starts later: the fictive platform fills the days between', () => {
    const later = plusDays(TODAY, 4);
    const lines: Line[] = [
      { ...ADDRESSES[0]!, idInstance: 1, platform: US, start: '2026-01-01', end: later },
      { ...ADDRESSES[0]!, idInstance: 2, platform: '0777', start: later, end: null },
    ];
    const outcome = planDirectory({
      us: US,
      today: TODAY,
      lines,
      request: { kind: 'release', siren: SIREN, on: TODAY },
    });
    if (!('plan' in outcome)) throw new Error('refused');
    expect(outcome.plan.writes).toEqual([
      { kind: 'end', line: lines[0], on: TODAY },
      { kind: 'create', line: { ...ADDRESSES[0], platform: FICTIVE_PLATFORM, start: TODAY, end: later } },
    ]);
    expect(outcome.plan.receivingAfter).toEqual(['0777']);
    expect(resolveOn(carryOut(lines, outcome.plan.writes).map(oracle), SIREN, plusDays(TODAY, 1))).toBe('9998');
  });
});
