// What a campaign will do for one company, decided before anything is written, from what the directory, the SML's
// DNS and our store say of it now. Pure: the lookups come in (check-rows.ts makes them). The directory part is the
// registration's own plan (domain/directory/plan.ts) asked as the directory step will ask it, with the take-over
// consent the mandate will carry filled from the Annuaire, so a verdict and the step cannot disagree.
import { addressingOf, FICTIVE_PLATFORM, reaches, type Line } from '../directory/lines';
import { planDirectory } from '../directory/plan';
import {
  effectiveDay,
  parseInvoicingAddresses,
  type InvoicingAddress,
  type InvoicingAddresses,
} from '../party/invoicing-addresses';
import type { CampaignRow } from './row';

export const VERDICTS = ['new', 'takeover', 'migrate', 'already-ours', 'blocked', 'duplicate'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** What was found of the company, for its verdict. */
export interface RowLookups {
  /** The SIREN's directory lines in force or to come (masked ones left out). */
  lines: Line[];
  /** Its state in the Annuaire (A active, C ceased; null: unknown to it), asked when no line is in force. */
  companyState?: 'A' | 'C' | null;
  /** The SMPs the SML's DNS names for each of the row's Peppol participants (0225:<address>). */
  participants: { id: string; smpUrls: string[] }[];
  /** Whether an entry of this platform holds the SIREN's directory lines, and whether it is the workspace's. */
  heldHere?: { sameWorkspace: boolean };
  /** A registration of the SIREN under way in the workspace (its job id). */
  runningJob?: string;
}

export interface Judgement {
  verdict: Verdict;
  /** For people: why, and what the integrator should do about it. */
  reasons: string[];
  /** The platform whose lines are taken over: the mandate's take-over consent names it. */
  formerPlatform?: string;
  /** Participants at another SMP: the migration key to ask that SMP's provider for, by participant. */
  migrations?: { participant: string; smp: string }[];
}

/** What of a row its verdict rests on. */
export type JudgedRow = Pick<CampaignRow, 'siren' | 'invoicing' | 'formerPlatform'>;

export interface JudgeInput {
  /** Our matricule. */
  us: string;
  today: string;
  ourSmpUrl: string;
  row: JudgedRow;
  lookups: RowLookups;
}

const sameUrl = (a: string, b: string) => a.replace(/\/+$/, '').toLowerCase() === b.replace(/\/+$/, '').toLowerCase();

/** The row's invoicing addresses (the SIREN's alone when it states none), and the day they take effect. */
export function rowAddresses(row: JudgedRow, today: string): { addresses: InvoicingAddress[]; on: string } {
  const stated: Pick<InvoicingAddresses, 'addresses' | 'start'> = row.invoicing
    ? parseInvoicingAddresses(row.siren, row.invoicing)
    : { addresses: [{ id: row.siren, siren: row.siren }] };
  return { addresses: stated.addresses, on: effectiveDay(stated, today) };
}

export function judgeRow({ us, today, ourSmpUrl, row, lookups }: JudgeInput): Judgement {
  const blocked = (reason: string): Judgement => ({ verdict: 'blocked', reasons: [reason] });
  const { siren } = row;
  const inForce = lookups.lines.filter((l) => l.start <= today && reaches(l, today));
  if (lookups.companyState === 'C') return blocked(`SIREN ${siren} has ceased (the Annuaire's state C)`);
  if (inForce.length === 0 && lookups.companyState === null)
    return blocked(`SIREN ${siren} is unknown to the Annuaire: check the number, or wait for INSEE's next update`);
  if (lookups.runningJob)
    return {
      verdict: 'duplicate',
      reasons: [`a registration of SIREN ${siren} is under way in this workspace (job ${lookups.runningJob})`],
    };
  if (lookups.heldHere)
    return {
      verdict: 'already-ours',
      reasons: [
        lookups.heldHere.sameWorkspace
          ? `SIREN ${siren} is registered here already, by an entry of this workspace`
          : `SIREN ${siren} is registered on this platform already`,
      ],
    };
  const another = (l: Line) => l.platform !== us && l.platform !== FICTIVE_PLATFORM;
  const toCome = lookups.lines.find((l) => another(l) && l.start > today);
  if (toCome)
    return blocked(
      `platform ${toCome.platform} receives for ${toCome.address} from ${toCome.start} (a line to come): the company has chosen it from that day`,
    );

  const { addresses, on } = rowAddresses(row, today);
  const holders = [...new Set(lookups.lines.filter((l) => another(l) && reaches(l, on)).map((l) => l.platform))];
  const outcome = planDirectory({
    us,
    today,
    lines: lookups.lines,
    request: {
      kind: 'hold',
      siren,
      on,
      wanted: addresses.map(addressingOf),
      // A campaign's mandate entrusts every address of the SIREN, the model form's wildcard.
      entrusted: () => true,
      ...(holders.length === 1 && { consent: holders[0]! }),
      dropped: [],
    },
  });
  if ('refused' in outcome) return blocked(outcome.refused.message);
  const { plan } = outcome;
  const migrations = lookups.participants.flatMap((p) =>
    p.smpUrls.filter((u) => !sameUrl(u, ourSmpUrl)).map((smp) => ({ participant: p.id, smp })),
  );
  const migrationReasons = migrations.map(
    (m) => `${m.participant} is published at another SMP (${m.smp}): ask its provider for the migration key`,
  );
  const withMigrations = (j: Judgement): Judgement =>
    migrations.length ? { ...j, reasons: [...j.reasons, ...migrationReasons], migrations } : j;
  if (plan.kept.length === plan.targets.length && plan.targets.length > 0)
    return withMigrations({
      verdict: 'already-ours',
      reasons: [`the Annuaire shows our lines for ${plan.kept.map((l) => l.address).join(', ')} already`],
    });
  const former = plan.takenOverFrom[0];
  if (former) {
    const stated = row.formerPlatform && row.formerPlatform !== former;
    return withMigrations({
      verdict: 'takeover',
      formerPlatform: former,
      reasons: [
        `held by platform ${former} (${heldBy(lookups.lines, former, on)}): its lines end on ${on} and the mandate names it as the platform the company leaves`,
        ...(stated
          ? [
              `the file names platform ${row.formerPlatform}, but the Annuaire shows ${former}: the mandate names ${former}`,
            ]
          : []),
      ],
    });
  }
  const newReasons = [
    inForce.some((l) => l.platform === FICTIVE_PLATFORM)
      ? `on the fictive platform ${FICTIVE_PLATFORM}: registered from ${on}`
      : `no line in the Annuaire: the registration creates them from ${on}`,
    ...(row.formerPlatform
      ? [`the file names platform ${row.formerPlatform}, but it holds no line of the company: nothing to take over`]
      : []),
  ];
  if (migrations.length) return { verdict: 'migrate', reasons: [...migrationReasons, ...newReasons], migrations };
  return { verdict: 'new', reasons: newReasons };
}

const heldBy = (lines: Line[], platform: string, on: string) =>
  lines
    .filter((l) => l.platform === platform && reaches(l, on))
    .map((l) => `${l.address} since ${l.start}`)
    .join(', ');
