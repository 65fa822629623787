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
 * Filters are ANDed; an absent filter does not filter. Without any date criterion the lines in force today are
 * returned (as for GET); `modeAudit` returns the whole history, masked lines included.
 */
export function search(lines: readonly StoredLine[], body: SearchBody, today: string) {
  const f = body.filtres ?? {};
  const h = f.historisation ?? {};
  const strict = (want: Filter, have: string | undefined) => !want?.valeur || want.valeur === have;
  const contains = (want: Filter, have: string | undefined) => !want?.valeur || (have ?? '').includes(want.valeur);
  const from = h.dateDebutRecherche?.valeur;
  const to = h.dateFinRecherche?.valeur;
  const period = (l: StoredLine) => {
    // A masked line is found only by an audit of the whole history.
    if (l.masque) return h.modeAudit?.valeur === true;
    if (h.dateObservation?.valeur) return inForceOn(l, h.dateObservation.valeur);
    if (from || to)
      return (!to || l.dateDebutEffet <= to) && (!from || l.dateFinEffet === null || l.dateFinEffet > from);
    return h.modeAudit?.valeur === true || inForceOn(l, today);
  };
  const found = lines.filter(
    (l) =>
      strict(f.siren, l.siren) &&
      strict(f.siret, l.siret) &&
      strict(f.matriculePlateforme, l.matriculePlateforme) &&
      strict(f.suffixeAdressage, l.suffixeAdressage) &&
      contains(f.identifiantAdressage, l.identifiantAdressage) &&
      contains(f.identifiantRoutage, l.identifiantRoutage) &&
      period(l),
  );
  const views = found.map(wireLine);
  const flat = (v: ReturnType<typeof wireLine>, champ: string) =>
    (v as Record<string, unknown>)[champ] ?? (v.historisation as Record<string, unknown>)[champ] ?? '';
  for (const t of [...(body.tris ?? [])].reverse()) {
    if (!t.champ) continue;
    const sign = t.ordre === 'descendant' ? -1 : 1;
    views.sort(
      (a, b) => sign * String(flat(a, t.champ!)).localeCompare(String(flat(b, t.champ!)), 'fr', { numeric: true }),
    );
  }
  const skip = body.ignorer ?? 0;
  const page = views.slice(skip, skip + Math.min(body.limite ?? MAX_PAGE, MAX_PAGE));
  return { total: views.length, page, partial: skip + page.length < views.length };
}
