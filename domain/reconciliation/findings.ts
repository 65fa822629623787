// What the nightly reconciliation can find, judged from what the directory and the SML say against what we
// believe. Pure: the use cases (run.ts) read, these decide. One finding per (kind, subject); the subject is an
// addressing identifier (directory kinds) or a participant id (Peppol kinds).
import type { AnnuaireLine } from '../directory/annuaire';
import { FICTIVE_PLATFORM, reaches, sameAddress } from '../directory/lines';

export const DRIFT_KINDS = [
  /** Another platform took our line over: ours ends, theirs starts (details: platform, day). */
  'moved-out',
  /** The PPF ended the lines of a company that ceased (details: day). */
  'ceased',
  /** Our line is no longer in the directory, and nobody else's replaces it. */
  'line-missing',
  /** Our line was ended or masked without us, the company active and nobody taking it over. */
  'line-changed',
  /** A line we wrote that the directory does not show yet (changes show the next day); a fault after two runs. */
  'line-pending',
  /** A line on our matricule that we have no record of. */
  'line-unknown',
  /** A participant of ours the SML now points to another SMP (details: smp). */
  'participant-migrated',
  /** A participant of ours the SML no longer holds, and no other SMP has. */
  'participant-missing',
  /** A participant the SML lists for our SMP that we do not publish. */
  'participant-unknown',
] as const;
export type DriftKind = (typeof DRIFT_KINDS)[number];

/** Acting on these changes what the company receives: only when two runs 12 h apart agree, or an operator confirms. */
export const DESTRUCTIVE: readonly DriftKind[] = ['moved-out', 'ceased', 'participant-migrated'];
/** Acting on these puts back what we believe, when the company's mandate still covers it. */
export const REPAIRABLE: readonly DriftKind[] = ['line-missing', 'line-changed', 'participant-missing'];

export interface Finding {
  kind: DriftKind;
  subject: string;
  entryId?: string;
  details: Record<string, string | number | boolean>;
}

/** A line we hold, as our records have it (table directory_lines). */
export interface RecordedLine {
  address: string;
  siren: string;
  entryId: string;
  idInstance: number;
}

export interface PageVerdict {
  /** Addresses whose recorded line the page shows. */
  seen: string[];
  /** Ours, shown ended: what ended them is looked up (judgeAddress). */
  ended: { line: AnnuaireLine; recorded: RecordedLine }[];
  unknown: Finding[];
}

/**
 * One page of our matricule's lines (those reaching `from`, a few days back so that recent ends show) against our
 * records of their addresses. A line of ours we have no record of, open-ended, is reported; one with an end is
 * history (a company that left us) or on its way out (an address update ending it at a later day).
 */
export function judgePage(lines: readonly AnnuaireLine[], recorded: ReadonlyMap<string, RecordedLine>): PageVerdict {
  const verdict: PageVerdict = { seen: [], ended: [], unknown: [] };
  for (const line of lines) {
    const rec = recorded.get(line.identifiantAdressage.toLowerCase());
    if (rec && rec.idInstance === line.idInstance) {
      verdict.seen.push(rec.address);
      if (line.dateFinEffet !== null) verdict.ended.push({ line, recorded: rec });
    } else if (line.dateFinEffet === null) {
      verdict.unknown.push({
        kind: 'line-unknown',
        subject: line.identifiantAdressage,
        ...(rec && { entryId: rec.entryId }),
        details: { idInstance: line.idInstance, start: line.dateDebutEffet, ...(rec && { recorded: rec.idInstance }) },
      });
    }
  }
  return verdict;
}

export interface AddressFacts {
  recorded: RecordedLine;
  /** Ours as the matricule's pages showed it (ended), or undefined when they did not show it at all. */
  shown?: AnnuaireLine;
  /** Every line of the SIREN reaching a few days back, masked ones included (an audit search). */
  sirenLines: readonly AnnuaireLine[];
  /** The company's administrative state in the directory (A active, C ceased); undefined when unknown to it. */
  companyState?: string;
  /** We wrote it since the previous run began (or there is none): the directory may not show it yet. */
  writtenSinceLastRun: boolean;
  ourMatricule: string;
  day: string;
}

/** Why our line ended or went missing: another platform, the company's cessation, or nobody (ours to repair). */
export function judgeAddress(f: AddressFacts): Finding | undefined {
  const { recorded, day } = f;
  const base = { subject: recorded.address, entryId: recorded.entryId };
  const ours = f.shown ?? f.sirenLines.find((l) => l.idInstance === recorded.idInstance);
  // Not shown at all, and written lately: the directory may not show it yet (nor the end of the line it replaced).
  if (!ours && f.writtenSinceLastRun) return { ...base, kind: 'line-pending', details: {} };
  const successor = f.sirenLines
    .filter(
      (l) =>
        sameAddress(l.identifiantAdressage, recorded.address) &&
        !l.masked &&
        l.matriculePlateforme !== f.ourMatricule &&
        l.matriculePlateforme !== FICTIVE_PLATFORM &&
        (!ours || l.dateDebutEffet >= ours.dateDebutEffet) && // the line ours replaced is no successor
        reaches({ start: l.dateDebutEffet, end: l.dateFinEffet }, day),
    )
    .sort((a, b) => a.dateDebutEffet.localeCompare(b.dateDebutEffet))[0];
  if (successor)
    return {
      ...base,
      kind: 'moved-out',
      details: { platform: successor.matriculePlateforme, day: successor.dateDebutEffet },
    };
  if (f.companyState === 'C') return { ...base, kind: 'ceased', details: { day: ours?.dateFinEffet ?? day } };
  if (ours?.masked) return { ...base, kind: 'line-changed', details: { masked: true } };
  if (ours && ours.dateFinEffet !== null)
    return { ...base, kind: 'line-changed', details: { endsOn: ours.dateFinEffet } };
  if (ours) return undefined; // in force as recorded: a page boundary moved under the scan
  return { ...base, kind: 'line-missing', details: {} };
}

/**
 * A participant of ours the SML's List did not show, by what the SML's DNS answers for it: another SMP's address
 * (migrated), ours (the List was behind: nothing to say), or nothing (missing).
 */
export function judgeParticipant(p: {
  participantId: string;
  entryId: string;
  smpUrls: readonly string[];
  ourSmpUrl: string;
}): Finding | undefined {
  const base = { subject: p.participantId, entryId: p.entryId };
  if (p.smpUrls.length === 0) return { ...base, kind: 'participant-missing', details: {} };
  const ours = (u: string) => u.replace(/\/+$/, '').toLowerCase() === p.ourSmpUrl.replace(/\/+$/, '').toLowerCase();
  const other = p.smpUrls.find((u) => !ours(u));
  return other ? { ...base, kind: 'participant-migrated', details: { smp: other } } : undefined;
}
