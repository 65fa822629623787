// Routing codes (code-routage): an identifiantRoutage under a SIRET (a service, a GLN or ODETTE code, an internal
// code). One must exist, and be open (etatAdministratif A), before a directory line can address invoices to it at the
// SIREN_SIRET_ROUTAGE level. The set of codes, their wire view (codeRoutagePayloadHisto) and the
// POST /code-routage/recherche semantics.
import { Refusal } from './refusal';

export interface RoutingCodeAddress {
  ligneAdresse1?: string | null;
  ligneAdresse2?: string | null;
  ligneAdresse3?: string | null;
  codePostal?: string | null;
  subDivisionPays?: string | null;
  localite?: string | null;
  codePays?: string | null;
}

/** What createCodeRoutageBody carries. */
export interface RoutingCodeData {
  siret: string;
  identifiantRoutage: string;
  libelleCodeRoutage: string;
  natureEtablissement: 'Privé' | 'Public';
  etatAdministratif: 'A' | 'F';
  typeIdentifiantRoutage?: string;
  gestionEngagementJuridique?: boolean;
  adresse?: RoutingCodeAddress;
}

export interface StoredRoutingCode extends RoutingCodeData {
  idInstance: number;
  /** In force from this day (historisation.dateDebutEffet): the day it was created. */
  dateDebutEffet: string;
  /** When it was written (historisation.dateDefinition) and by whom. */
  dateDefinition: string;
  creePar: string;
}

export type SeedRoutingCode = Pick<RoutingCodeData, 'siret' | 'identifiantRoutage'> &
  Partial<Omit<RoutingCodeData, 'siret' | 'identifiantRoutage'>> &
  Partial<Pick<StoredRoutingCode, 'dateDebutEffet' | 'creePar'>>;

const key = (siret: string, identifiantRoutage: string) => `${siret}/${identifiantRoutage}`;

/** The directory's routing codes; a code is known by its SIRET and identifiantRoutage, once. */
export class RoutingCodes {
  private readonly codes: StoredRoutingCode[] = [];
  private readonly byKey = new Map<string, StoredRoutingCode>();
  private readonly byIdInstance = new Map<number, StoredRoutingCode>();

  constructor(
    /** Draws the next idInstance (shared with the lines, so an id names one thing). */
    private readonly nextId: () => number,
    saved: StoredRoutingCode[] = [],
    /** Told of each code written (the journal). */
    private readonly written: (c: StoredRoutingCode) => void = () => {},
    /** A write's timestamp (the simulator's day). */
    private readonly now: () => string = () => new Date().toISOString(),
  ) {
    saved.forEach((c) => this.index(c));
  }

  /** A code as the journal has it: added, or replacing the known one of its idInstance. */
  restore(c: StoredRoutingCode): void {
    const known = this.byIdInstance.get(c.idInstance);
    if (!known) return this.index(c);
    this.codes[this.codes.indexOf(known)] = c;
    this.byKey.set(key(c.siret, c.identifiantRoutage), c);
    this.byIdInstance.set(c.idInstance, c);
  }

  all(): readonly StoredRoutingCode[] {
    return this.codes;
  }

  get(siret: string, identifiantRoutage: string): StoredRoutingCode | undefined {
    return this.byKey.get(key(siret, identifiantRoutage));
  }

  byId(id: number): StoredRoutingCode | undefined {
    return this.byIdInstance.get(id);
  }

  create(data: RoutingCodeData, by: string, day: string): StoredRoutingCode {
    const existing = this.get(data.siret, data.identifiantRoutage);
    if (existing)
      throw new Refusal(
        422,
        `le code routage ${data.identifiantRoutage} existe déjà pour le SIRET ${data.siret} ` +
          `(idInstance ${existing.idInstance})`,
      );
    return this.insert({ ...data, dateDebutEffet: day, creePar: by });
  }

  /** Test seeding: defaults for what a test does not care about; a duplicate is still refused. */
  seed(s: SeedRoutingCode, day: string): StoredRoutingCode {
    if (this.get(s.siret, s.identifiantRoutage))
      throw new Refusal(422, `le code routage ${s.identifiantRoutage} existe déjà pour le SIRET ${s.siret}`);
    return this.insert({
      libelleCodeRoutage: `Code routage ${s.identifiantRoutage}`,
      natureEtablissement: 'Privé',
      etatAdministratif: 'A',
      ...s,
      dateDebutEffet: s.dateDebutEffet ?? day,
      creePar: s.creePar ?? 'seed',
    });
  }

  /** Why a new line may not be addressed to this routing code, or undefined when it may. */
  refusalForNewLine(siret: string, identifiantRoutage: string): Refusal | undefined {
    const c = this.get(siret, identifiantRoutage);
    if (!c)
      return new Refusal(
        422,
        `le code routage ${identifiantRoutage} n'existe pas pour le SIRET ${siret} : ` +
          `créez-le d'abord (POST /code-routage)`,
      );
    if (c.etatAdministratif === 'F')
      return new Refusal(
        422,
        `le code routage ${identifiantRoutage} du SIRET ${siret} est fermé (etatAdministratif F) : ` +
          `aucune nouvelle ligne d'annuaire ne peut l'utiliser`,
      );
    return undefined;
  }

  private insert(c: Omit<StoredRoutingCode, 'idInstance' | 'dateDefinition'>): StoredRoutingCode {
    const code: StoredRoutingCode = {
      idInstance: this.nextId(),
      siret: c.siret,
      identifiantRoutage: c.identifiantRoutage,
      libelleCodeRoutage: c.libelleCodeRoutage,
      natureEtablissement: c.natureEtablissement,
      etatAdministratif: c.etatAdministratif,
      ...(c.typeIdentifiantRoutage !== undefined && { typeIdentifiantRoutage: c.typeIdentifiantRoutage }),
      ...(c.gestionEngagementJuridique !== undefined && { gestionEngagementJuridique: c.gestionEngagementJuridique }),
      ...(c.adresse !== undefined && { adresse: c.adresse }),
      dateDebutEffet: c.dateDebutEffet,
      dateDefinition: this.now(),
      creePar: c.creePar,
    };
    this.index(code);
    this.written(code);
    return code;
  }

  private index(c: StoredRoutingCode): void {
    this.codes.push(c);
    this.byKey.set(key(c.siret, c.identifiantRoutage), c);
    this.byIdInstance.set(c.idInstance, c);
  }
}

/** The fields `champs` may name (champCodeRoutage); those of historisation are looked up there. */
export const ROUTING_CODE_FIELDS = [
  'siret',
  'typeIdentifiantRoutage',
  'libelleCodeRoutage',
  'identifiantRoutage',
  'gestionEngagementJuridique',
  'etatAdministratif',
  'adresse',
  'dateDefinition',
  'dateDebutEffet',
  'masque',
  'idInstance',
  'creePar',
] as const;
const HISTORY_FIELDS = new Set(['dateDefinition', 'dateDebutEffet', 'masque', 'idInstance', 'creePar']);

/**
 * codeRoutagePayloadHisto. The read schemas of 1.11.0 have no natureEtablissement: it is written, never returned.
 * `champs`, when given, keeps only the fields it names.
 */
export function wireRoutingCode(c: StoredRoutingCode, champs?: readonly string[]) {
  const full = {
    identifiantRoutage: c.identifiantRoutage,
    siret: c.siret,
    ...(c.typeIdentifiantRoutage !== undefined && { typeIdentifiantRoutage: c.typeIdentifiantRoutage }),
    libelleCodeRoutage: c.libelleCodeRoutage,
    ...(c.gestionEngagementJuridique !== undefined && { gestionEngagementJuridique: c.gestionEngagementJuridique }),
    etatAdministratif: c.etatAdministratif,
    ...(c.adresse !== undefined && {
      adresse: { ...c.adresse, ...(c.adresse.codePays === 'FR' && { libellePays: 'France' }) },
    }),
    historisation: {
      dateDefinition: c.dateDefinition,
      dateDebutEffet: c.dateDebutEffet,
      creePar: c.creePar,
      masque: false,
      idInstance: c.idInstance,
    },
  };
  if (!champs?.length) return full;
  const kept: Record<string, unknown> = {};
  const history: Record<string, unknown> = {};
  for (const f of champs) {
    if (HISTORY_FIELDS.has(f)) history[f] = (full.historisation as Record<string, unknown>)[f];
    else if (f in full) kept[f] = (full as Record<string, unknown>)[f];
  }
  if (Object.keys(history).length) kept.historisation = history;
  return kept;
}

type Filter<T = string> = { op?: string; valeur?: T } | undefined;

export interface RoutingCodeSearchBody {
  filtres?: {
    identifiantRoutage?: Filter;
    siret?: Filter;
    libelleCodeRoutage?: Filter;
    etatAdministratif?: Filter;
    lignesAdresse?: Filter;
    codePostal?: Filter;
    localite?: Filter;
    historisation?: {
      dateObservation?: Filter;
      dateDebutRecherche?: Filter;
      dateFinRecherche?: Filter;
      creePar?: Filter;
      modeAudit?: Filter<boolean>;
    };
  };
  tris?: { champ?: string; ordre?: 'ascendant' | 'descendant' }[];
  champs?: string[];
  limite?: number;
  ignorer?: number;
}

export const MAX_PAGE = 100;

/**
 * Filters are ANDed; an absent filter does not filter; `contient` filters ignore case. A code has no end date (it is
 * closed through its etatAdministratif): without a date criterion the codes in force today are returned, i.e. all
 * but those created later; `modeAudit` returns them all.
 */
export function searchRoutingCodes(codes: readonly StoredRoutingCode[], body: RoutingCodeSearchBody, today: string) {
  const f = body.filtres ?? {};
  const h = f.historisation ?? {};
  const strict = (want: Filter, have: string | undefined) => !want?.valeur || want.valeur === have;
  const contains = (want: Filter, have: string | null | undefined) =>
    !want?.valeur || (have ?? '').toLowerCase().includes(want.valeur.toLowerCase());
  const period = (c: StoredRoutingCode) => {
    if (h.dateObservation?.valeur) return c.dateDebutEffet <= h.dateObservation.valeur;
    if (h.dateDebutRecherche?.valeur || h.dateFinRecherche?.valeur)
      return !h.dateFinRecherche?.valeur || c.dateDebutEffet <= h.dateFinRecherche.valeur;
    return h.modeAudit?.valeur === true || c.dateDebutEffet <= today;
  };
  const found = codes.filter(
    (c) =>
      strict(f.siret, c.siret) &&
      contains(f.identifiantRoutage, c.identifiantRoutage) &&
      contains(f.libelleCodeRoutage, c.libelleCodeRoutage) &&
      strict(f.etatAdministratif, c.etatAdministratif) &&
      contains(
        f.lignesAdresse,
        [c.adresse?.ligneAdresse1, c.adresse?.ligneAdresse2, c.adresse?.ligneAdresse3].filter(Boolean).join(' - '),
      ) &&
      contains(f.codePostal, c.adresse?.codePostal) &&
      contains(f.localite, c.adresse?.localite) &&
      contains(h.creePar, c.creePar) &&
      period(c),
  );
  const flat = (c: StoredRoutingCode, champ: string) => {
    const v = (c as unknown as Record<string, unknown>)[champ];
    return v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  };
  const sorted = [...found];
  for (const t of [...(body.tris ?? [])].reverse()) {
    if (!t.champ) continue;
    const sign = t.ordre === 'descendant' ? -1 : 1;
    sorted.sort((a, b) => sign * flat(a, t.champ!).localeCompare(flat(b, t.champ!), 'fr', { numeric: true }));
  }
  const skip = body.ignorer ?? 0;
  const page = sorted
    .slice(skip, skip + Math.min(body.limite ?? MAX_PAGE, MAX_PAGE))
    .map((c) => wireRoutingCode(c, body.champs));
  return { total: sorted.length, page, partial: skip + page.length < sorted.length };
}
