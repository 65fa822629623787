// The directory step's decisions, as a pure function: the lines of a SIREN in force and to come + what we are asked +
// the day → the writes that do it (lines to end, to mask, to create), or a refusal before anything is written.
// The guarantee (test/domain/directory/plan.test.ts proves it over generated layouts): every address that resolved
// to a platform on a day still does after the writes, the SIREN address has a line every day from today on, and no
// two lines of one address overlap.
import { FICTIVE_PLATFORM, isSirenLevel, reaches, sameAddress, type Addressing, type Line, type Period } from './lines';

/** Our lines for these addresses from the switch day on; those of others there end or are cancelled for them. */
export interface HoldRequest {
  kind: 'hold';
  siren: string;
  /** The switch day (today or later): our lines start on it, the lines handed over end on it. */
  on: string;
  /** The addresses the party states, and those an earlier attempt of the step planned to take over. */
  wanted: Addressing[];
  /** Whether the signed mandate entrusts an address: another platform's lines there are taken over with the rest. */
  entrusted: (a: Addressing) => boolean;
  /** The platform named by the signed mandate's take-over consent. */
  consent?: string;
  /** A take-over identifier is stated now but was set after signing: the signed mandate carries no consent. */
  consentSetAfterSigning?: boolean;
  /** Addresses the entry holds and no longer states (an update): our lines there end on the switch day. */
  dropped: string[];
}

/** Our lines end on `on`: today for an unregistration, the day it leaves for a move-out. */
export interface ReleaseRequest {
  kind: 'release';
  siren: string;
  on: string;
}

/** Nothing of ours changes: the SIREN's uncovered days go to the fictive platform (a repair after a refused write). */
export interface CoverRequest {
  kind: 'cover';
  siren: string;
  on: string;
}

export type DirectoryRequest = HoldRequest | ReleaseRequest | CoverRequest;

export interface NewLine extends Addressing, Period {
  platform: string;
}

export type Write =
  { kind: 'end'; line: Line; on: string } | { kind: 'mask'; line: Line } | { kind: 'create'; line: NewLine };

export interface DirectoryPlan {
  on: string;
  /** In the order they run: per address, what is handed over ends before ours starts; the fictive lines come last. */
  writes: Write[];
  /** The addresses whose lines become or stay ours (a hold): those stated, then those taken over besides. */
  targets: Addressing[];
  /** Our lines already as asked. */
  kept: Line[];
  /** The addresses whose lines of ours end. */
  released: string[];
  /** Other platforms whose lines at our addresses end or are cancelled on the switch day (a take-over). */
  takenOverFrom: string[];
  /** Other platforms with lines for the company on or after `on` (a release: it moved to them). */
  receivingAfter: string[];
}

export type RefusalCode = 'takeover-identifier-missing' | 'takeover-identifier-mismatch' | 'takeover-consent-missing';

export type PlanOutcome = { plan: DirectoryPlan } | { refused: { code: RefusalCode; message: string } };

export interface PlanInput {
  /** Our matricule. */
  us: string;
  today: string;
  /** The SIREN's lines, those ended before today may be left out. */
  lines: readonly Line[];
  request: DirectoryRequest;
}

export function planDirectory({ us, today, lines, request }: PlanInput): PlanOutcome {
  // Lines that never were or no longer are in force play no part.
  const live = lines.filter((l) => reaches(l, today) && (l.end === null || l.end > l.start));
  const on = request.on < today ? today : request.on;
  const at = (address: string) => live.filter((l) => sameAddress(l.address, address) && reaches(l, on));
  const another = (l: Line) => l.platform !== us && l.platform !== FICTIVE_PLATFORM;
  const writes: Write[] = [];
  const kept: Line[] = [];
  const released: string[] = [];
  const handOver = (l: Line) => writes.push(cut(l, on, today));

  let takenOverFrom: string[] = [];
  let targets: Addressing[] = [];
  if (request.kind === 'hold') {
    // Another platform's lines within the mandate come over too, but for the addresses the party gives up. (Once
    // handed over they no longer show: a retry finds them among `wanted`, where the first plan's targets are kept.)
    const givenUp = (a: Addressing) => request.dropped.some((d) => sameAddress(d, a.address));
    targets = unique([
      ...request.wanted,
      ...live.filter((l) => another(l) && reaches(l, on) && request.entrusted(l) && !givenUp(l)).map(addressingOf),
    ]);
    const held = targets.flatMap((t) => at(t.address).filter(another));
    const refusal = consentRefusal(request, held);
    if (refusal) return { refused: refusal };
    for (const t of targets) {
      const here = at(t.address);
      const ours = here.find((l) => l.platform === us && l.start <= on && l.end === null);
      if (ours) {
        kept.push(ours);
        continue;
      }
      here.forEach(handOver);
      writes.push({ kind: 'create', line: { ...addressingOf(t), platform: us, start: on, end: null } });
    }
    for (const d of request.dropped.filter((d) => !targets.some((t) => sameAddress(t.address, d)))) {
      at(d)
        .filter((l) => l.platform === us)
        .forEach(handOver);
      released.push(d);
    }
    takenOverFrom = platformsOf(held);
  } else if (request.kind === 'release') {
    const ours = live.filter((l) => l.platform === us && reaches(l, on));
    ours.forEach(handOver);
    released.push(...unique(ours.map(addressingOf)).map((a) => a.address));
  }
  for (const gap of uncovered(sirenLevelAfter(live, writes), today))
    writes.push({
      kind: 'create',
      line: { address: request.siren, siren: request.siren, platform: FICTIVE_PLATFORM, ...gap },
    });
  return {
    plan: {
      on,
      writes,
      targets,
      kept,
      released,
      takenOverFrom,
      receivingAfter: platformsOf(live.filter((l) => another(l) && reaches(l, on) && !cutBy(writes, l))),
    },
  };
}

/**
 * How a line handed over on `on` stops: it ends on `on` if it started before; one not yet in force is cancelled
 * (masked); one starting today, the switch day, ends on its start day, never having been in force.
 */
function cut(line: Line, on: string, today: string): Write {
  if (line.start < on) return { kind: 'end', line, on };
  if (line.start > today) return { kind: 'mask', line };
  return { kind: 'end', line, on: line.start };
}

/** Without the company's consent to leave the platform holding its lines, nothing is written. */
function consentRefusal(r: HoldRequest, held: Line[]): { code: RefusalCode; message: string } | undefined {
  const holders = platformsOf(held);
  if (holders.length === 0) return undefined;
  const lines = held.map(describe).join('; ');
  const toCome = held.every((l) => l.start > r.on);
  const who = `SIREN ${r.siren} ${toCome ? 'is to be held' : 'is held'} in the Annuaire by platform ${holders.join(', ')} (${lines}), and nothing was written`;
  const future = toCome
    ? `; if the company is moving to ${holders.join(', ')} on that day, do not register it here`
    : '';
  if (!r.consent && r.consentSetAfterSigning)
    return {
      code: 'takeover-consent-missing',
      message: `${who}: the signed mandate carries no take-over consent (fr-former-matricule was set after signing): run the registration again to sign the new mandate${future}`,
    };
  if (!r.consent)
    return {
      code: 'takeover-identifier-missing',
      message: `${who}: set the meta key fr-former-matricule to that platform's matricule (with the party's consent to the take-over) and run the registration again${future}`,
    };
  if (holders.length > 1 || holders[0] !== r.consent)
    return {
      code: 'takeover-identifier-mismatch',
      message: `${who}, but the mandate's take-over consent (fr-former-matricule) names platform ${r.consent}: correct the meta key to the platform holding the lines and run the registration again`,
    };
  return undefined;
}

const describe = (l: Line) => `line ${l.idInstance} for ${l.address} from ${l.start}${l.end ? ` to ${l.end}` : ''}`;

/** The SIREN-level lines once the writes are done. */
function sirenLevelAfter(live: Line[], writes: Write[]): Period[] {
  const periods: Period[] = live.filter(isSirenLevel).flatMap((l): Period[] => {
    const w = cutBy(writes, l);
    if (!w) return [l];
    return w.kind === 'end' ? [{ start: l.start, end: w.on }] : [];
  });
  for (const w of writes) if (w.kind === 'create' && isSirenLevel(w.line)) periods.push(w.line);
  return periods.filter((p) => p.end === null || p.end > p.start);
}

const cutBy = (writes: Write[], l: Line) =>
  writes.find(
    (w): w is Exclude<Write, { kind: 'create' }> => w.kind !== 'create' && w.line.idInstance === l.idInstance,
  );

/** The days from `from` on that no period covers, as periods (periods of one address never overlap). */
export function uncovered(periods: Period[], from: string): Period[] {
  const gaps: Period[] = [];
  let cursor = from;
  for (const p of [...periods].filter((p) => reaches(p, from)).sort((a, b) => (a.start < b.start ? -1 : 1))) {
    if (p.start > cursor) gaps.push({ start: cursor, end: p.start });
    if (p.end === null) return gaps;
    if (p.end > cursor) cursor = p.end;
  }
  gaps.push({ start: cursor, end: null });
  return gaps;
}

const addressingOf = (a: Addressing): Addressing => ({
  address: a.address,
  siren: a.siren,
  ...(a.siret && { siret: a.siret }),
  ...(a.routingId && { routingId: a.routingId }),
  ...(a.suffix && { suffix: a.suffix }),
});

const unique = (as: Addressing[]) => as.filter((a, i) => as.findIndex((o) => sameAddress(o.address, a.address)) === i);

const platformsOf = (ls: Line[]) => [...new Set(ls.map((l) => l.platform))];
