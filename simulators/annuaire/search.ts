// POST /ligne-annuaire/recherche semantics and the wire view of a line (ligneAnnuairePayloadHisto).
import { inForceOn, type StoredLine } from './store';

type Filter<T = string> = { op?: string; valeur?: T } | undefined;

export interface SearchBody {
  filtres?: {
    identifiantAdressage?: Filter;
    matriculePlateforme?: Filter;
    siren?: Filter;
    siret?: Filter;
    identifiantRoutage?: Filter;
    suffixeAdressage?: Filter;
    historisation?: {
      dateObservation?: Filter;
      dateDebutRecherche?: Filter;
      dateFinRecherche?: Filter;
      modeAudit?: Filter<boolean>;
    };
  };
  tris?: { champ?: string; ordre?: 'ascendant' | 'descendant' }[];
  limite?: number;
  ignorer?: number;
}

export const MAX_PAGE = 100;

export function wireLine(l: StoredLine) {
  return {
    matriculePlateforme: l.matriculePlateforme,
    identifiantAdressage: l.identifiantAdressage,
    siren: l.siren,
    ...(l.siret && { siret: l.siret }),
    ...(l.identifiantRoutage && { identifiantRoutage: l.identifiantRoutage }),
    ...(l.suffixeAdressage && { suffixeAdressage: l.suffixeAdressage }),
    dateFinEffet: l.dateFinEffet,
    ...(l.dateFinEffet && { dateFinEffective: l.dateFinEffet }),
    historisation: {
      dateDefinition: l.dateDefinition,
      dateDebutEffet: l.dateDebutEffet,
      creePar: l.creePar,
      masque: l.masque === true,
      idInstance: l.idInstance,
    },
  };
}

/**
 * A search's answer: its page and total, from the lines found in order (`select`). A search without `tris` (or sorted
 * on idInstance first) keeps the order of `lines`, idInstance order: no sort.
 */
export function search(
  lines: readonly StoredLine[],
  body: SearchBody,
  today: string,
  view: (l: StoredLine) => StoredLine | undefined = (l) => l,
) {
  return pageOf(select(lines, body, today, view), body);
}

export function pageOf(found: readonly StoredLine[], body: SearchBody) {
  const skip = body.ignorer ?? 0;
  const page = found.slice(skip, skip + Math.min(body.limite ?? MAX_PAGE, MAX_PAGE)).map(wireLine);
  return { total: found.length, page, partial: skip + page.length < found.length };
}

/**
 * The lines a search finds, in its order. Filters are ANDed; an absent filter does not filter. Without any date
 * criterion the lines in force today are returned (as for GET); `modeAudit` returns the whole history, masked lines
 * included. `view` is the line as reads see it today (next-day visibility), or undefined.
 */
export function select(
  lines: readonly StoredLine[],
  body: SearchBody,
  today: string,
  view: (l: StoredLine) => StoredLine | undefined,
): StoredLine[] {
  const f = body.filtres ?? {};
  const h = f.historisation ?? {};
  // Only the criteria the search names are tested, each once per line.
  const tests: ((l: StoredLine) => boolean)[] = [];
  const strict = (want: Filter, have: (l: StoredLine) => string | undefined) => {
    const v = want?.valeur;
    if (v) tests.push((l) => have(l) === v);
  };
  const contains = (want: Filter, have: (l: StoredLine) => string | undefined) => {
    const v = want?.valeur;
    if (v) tests.push((l) => (have(l) ?? '').includes(v));
  };
  strict(f.siren, (l) => l.siren);
  strict(f.siret, (l) => l.siret);
  strict(f.matriculePlateforme, (l) => l.matriculePlateforme);
  strict(f.suffixeAdressage, (l) => l.suffixeAdressage);
  contains(f.identifiantAdressage, (l) => l.identifiantAdressage);
  contains(f.identifiantRoutage, (l) => l.identifiantRoutage);
  const audit = h.modeAudit?.valeur === true;
  const on = h.dateObservation?.valeur;
  const from = h.dateDebutRecherche?.valeur;
  const to = h.dateFinRecherche?.valeur;
  const period: (l: StoredLine) => boolean = on
    ? (l) => inForceOn(l, on)
    : from || to
      ? (l) => (!to || l.dateDebutEffet <= to) && (!from || l.dateFinEffet === null || l.dateFinEffet > from)
      : audit
        ? () => true
        : (l) => inForceOn(l, today);
  // A masked line is found only by an audit of the whole history.
  tests.push((l) => (l.masque ? audit : period(l)));
  const found: StoredLine[] = [];
  for (const stored of lines) {
    const l = stored.before ? view(stored) : stored;
    if (l && tests.every((t) => t(l))) found.push(l);
  }
  const tris = (body.tris ?? []).filter((t) => t.champ);
  // idInstance is unique: sorted on it first, it decides alone.
  if (!tris.length || tris[0]!.champ === 'idInstance') return tris[0]?.ordre === 'descendant' ? found.reverse() : found;
  const sorted = found.map((l) => ({ l, v: wireLine(l) as unknown as Record<string, unknown> }));
  const flat = (v: Record<string, unknown>, champ: string) =>
    String(v[champ] ?? (v.historisation as Record<string, unknown>)[champ] ?? '');
  for (const t of [...tris].reverse()) {
    const sign = t.ordre === 'descendant' ? -1 : 1;
    sorted.sort((a, b) => sign * flat(a.v, t.champ!).localeCompare(flat(b.v, t.champ!), 'fr', { numeric: true }));
  }
  return sorted.map((x) => x.l);
}
