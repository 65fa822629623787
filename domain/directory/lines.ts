// Directory lines as the plan sees them, and the PPF's rules over them: periods are [start, end) (a line ended on D
// is no longer in force on D, so the next starts on D); two lines of one address never overlap. (An address with no
// line of its own in force resolves to the most specific one above it — SIRET + routing code → SIRET → SIREN,
// suffix → SIREN — so the SIREN's line, always there, answers for every address without one.)
import type { InvoicingAddress } from '../party/invoicing-addresses';

/** The fictive platform every company is on until a PA registers it. */
export const FICTIVE_PLATFORM = '9998';

/** What a line addresses: its identifier (SIREN, SIREN_SIRET, SIREN_SIRET_ROUTAGE or SIREN_SUFFIXE) and parts. */
export interface Addressing {
  address: string;
  siren: string;
  siret?: string;
  routingId?: string;
  suffix?: string;
}

export interface Line extends Addressing {
  idInstance: number;
  platform: string;
  /** YYYY-MM-DD, the first day in force. */
  start: string;
  /** YYYY-MM-DD, the first day no longer in force; null: open. */
  end: string | null;
}

export type Period = Pick<Line, 'start' | 'end'>;

/** Identifiers are compared as the directory does, whatever the case a caller wrote them in. */
export const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** Whether a period has any day on or after `day`. */
export const reaches = (p: Period, day: string) => p.end === null || p.end > day;

export const isSirenLevel = (a: Pick<Addressing, 'siret' | 'suffix'>) => !a.siret && !a.suffix;

/** YYYY-MM-DD plus `n` days. */
export const addDays = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/** Today as the directory counts days (UTC), YYYY-MM-DD. */
export const today = (now: Date = new Date()): string => now.toISOString().slice(0, 10);

/** An invoicing address as the directory plan addresses it. */
export const addressingOf = (a: InvoicingAddress): Addressing => ({
  address: a.id,
  siren: a.siren,
  ...(a.siret && { siret: a.siret }),
  ...(a.routingCode && { routingId: a.routingCode.id }),
  ...(a.suffix && { suffix: a.suffix }),
});
