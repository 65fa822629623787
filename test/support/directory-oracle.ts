// The PPF's rules, written apart from the code under test: which platform an address resolves to on a day, and what
// the directory accepts (the checks a plan's writes must pass). Tests judge the directory step with these.

export interface OracleLine {
  idInstance: number;
  identifiantAdressage: string;
  siren: string;
  siret?: string;
  identifiantRoutage?: string;
  suffixeAdressage?: string;
  matriculePlateforme: string;
  dateDebutEffet: string;
  dateFinEffet: string | null;
  masked?: boolean;
}

const inForce = (l: OracleLine, day: string) =>
  !l.masked && l.dateDebutEffet <= day && (l.dateFinEffet === null || day < l.dateFinEffet);

/** The identifiers the PPF looks at for an address, most specific first: SIRET + routing → SIRET → SIREN. */
export function fallbacks(id: string): string[] {
  const parts = id.split('_');
  const siren = parts[0]!;
  if (parts.length === 1) return [siren];
  const second = parts[1]!;
  // A 14-digit second part is a SIRET; anything else is an addressing suffix.
  if (/^\d{14}$/.test(second) && parts.length > 2) return [id, `${siren}_${second}`, siren];
  return [id, siren];
}

export function resolveOn(lines: readonly OracleLine[], id: string, day: string): string | undefined {
  for (const candidate of fallbacks(id)) {
    const hit = lines.filter(
      (l) => l.identifiantAdressage.toLowerCase() === candidate.toLowerCase() && inForce(l, day),
    );
    if (hit.length > 1) throw new Error(`${hit.length} lines in force for ${candidate} on ${day}`);
    if (hit[0]) return hit[0].matriculePlateforme;
  }
  return undefined;
}

/** Pairs of lines of one address whose periods meet (masked lines excepted). */
export function overlapping(lines: readonly OracleLine[]): [OracleLine, OracleLine][] {
  const live = lines.filter((l) => !l.masked && (l.dateFinEffet === null || l.dateFinEffet > l.dateDebutEffet));
  const pairs: [OracleLine, OracleLine][] = [];
  for (const [i, a] of live.entries())
    for (const b of live.slice(i + 1))
      if (
        a.identifiantAdressage.toLowerCase() === b.identifiantAdressage.toLowerCase() &&
        (b.dateFinEffet === null || a.dateDebutEffet < b.dateFinEffet) &&
        (a.dateFinEffet === null || b.dateDebutEffet < a.dateFinEffet)
      )
        pairs.push([a, b]);
  return pairs;
}

/** YYYY-MM-DD plus n days. */
export const plusDays = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/**
 * Every day from `today` through `today + horizon`, every identifier: one that resolved before resolves after; the
 * SIREN always does; no two lines of one identifier meet. Returns what is wrong, empty when all holds.
 */
export function coverageFaults(
  before: readonly OracleLine[],
  after: readonly OracleLine[],
  siren: string,
  today: string,
  horizon: number,
  extraIds: string[] = [],
): string[] {
  const faults: string[] = [];
  const ids = [
    ...new Set([siren, ...extraIds, ...[...before, ...after].map((l) => l.identifiantAdressage)].map((s) => s)),
  ];
  for (let n = 0; n <= horizon; n++) {
    const day = plusDays(today, n);
    for (const id of ids) {
      const was = resolveOn(before, id, day);
      const is = resolveOn(after, id, day);
      if (was && !is) faults.push(`${id} resolved to ${was} on ${day} before, to nothing after`);
    }
    if (!resolveOn(after, siren, day)) faults.push(`SIREN ${siren} has no line on ${day}`);
  }
  for (const [a, b] of overlapping(after))
    faults.push(`lines ${a.idInstance} and ${b.idInstance} of ${a.identifiantAdressage} overlap`);
  return faults;
}
