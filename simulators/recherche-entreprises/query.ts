// GET /search's parameters, read and checked as the real API does (its messages, its limits: per_page 1..25,
// page 1..1000 and page × per_page ≤ 10,000, 3 characters of q at least unless a filter is given, include only with
// minimal=true). A parameter the contract does not name is ignored, as the real API ignores it; a repeated one counts
// once (its first value, as aiohttp's query.get).
import { ApiError } from './http';
import { DEFAULT_FIELDS, SECONDARY, type Secondary } from './result';

/** Yes/no filters of the contract. */
export const BOOLEAN_FILTERS = [
  'convention_collective_renseignee',
  'egapro_renseignee',
  'est_achats_responsables',
  'est_administration',
  'est_alim_confiance',
  'est_association',
  'est_bio',
  'est_collectivite_territoriale',
  'est_entrepreneur_individuel',
  'est_entrepreneur_spectacle',
  'est_ess',
  'est_finess',
  'est_organisme_formation',
  'est_patrimoine_vivant',
  'est_qualiopi',
  'est_rge',
  'est_siae',
  'est_societe_mission',
  'est_uai',
] as const;
/** Filters on the people of a company. */
const PERSON_FILTERS = [
  'nom_personne',
  'prenoms_personne',
  'date_naissance_personne_min',
  'date_naissance_personne_max',
  'type_personne',
] as const;
/** Filters on data the simulator is never told (places, activity, size, identifiers, finances): nothing matches. */
const UNKNOWN_DATA_FILTERS = [
  'activite_principale',
  'categorie_entreprise',
  'code_collectivite_territoriale',
  'code_postal',
  'code_commune',
  'departement',
  'region',
  'epci',
  'id_convention_collective',
  'id_finess',
  'id_rge',
  'id_uai',
  'section_activite_principale',
  'tranche_effectif_salarie',
  'ca_min',
  'ca_max',
  'resultat_net_min',
  'resultat_net_max',
] as const;

export interface PersonFilter {
  nom?: string;
  prenoms?: string;
  /** YYYY-MM-DD bounds on the birth date (known to the month). */
  min?: string;
  max?: string;
  type?: 'dirigeant' | 'elu';
}

export interface SearchQuery {
  /** The text, trimmed; a SIREN or SIRET is in `siren`/`siret` instead. */
  q?: string;
  siren?: string;
  siret?: string;
  page: number;
  perPage: number;
  fields: ReadonlySet<Secondary>;
  etat?: 'A' | 'C';
  natures?: string[];
  booleans: Partial<Record<(typeof BOOLEAN_FILTERS)[number], boolean>>;
  person?: PersonFilter;
  /** A filter on data the simulator does not hold was given. */
  unknownData: boolean;
}

const bad = (erreur: string) => new ApiError(400, erreur);
const list = (v: string) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function integer(v: string | undefined, name: string, min: number, max: number, dflt: number): number {
  if (v === undefined) return dflt;
  if (!/^\s*[+-]?\d+\s*$/.test(v)) throw bad(`Veuillez indiquer un paramètre \`${name}\` entier.`);
  const n = Number(v);
  if (n < min || n > max)
    throw bad(`Veuillez indiquer un paramètre \`${name}\` entre \`${min}\` et \`${max}\`, par défaut \`${dflt}\`.`);
  return n;
}

function bool(v: string, name: string): boolean {
  const u = v.toUpperCase();
  if (u !== 'TRUE' && u !== 'FALSE') throw bad(`${name} doit prendre la valeur 'true' ou 'false' !`);
  return u === 'TRUE';
}

function day(v: string, name: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v) || Number.isNaN(Date.parse(v)))
    throw bad(`\`${name}\` : veuillez indiquer une date sous le format : aaaa-mm-jj. Exemple : '1990-01-02'`);
  return v;
}

function oneOf<T extends string>(v: string, name: string, allowed: readonly T[]): T {
  const found = allowed.find((a) => a.toUpperCase() === v.toUpperCase());
  if (!found) throw bad(`Le paramètre \`${name}\` doit prendre une des valeurs suivantes ${JSON.stringify(allowed)}.`);
  return found;
}

/** Formats checked for the filters on data the simulator lacks (the real API refuses a malformed one, 400). */
function checkUnknownData(get: (n: string) => string | undefined) {
  const each = (name: string, re: RegExp) => {
    const v = get(name);
    if (v !== undefined && !list(v).every((x) => re.test(x)))
      throw bad(`Au moins une valeur du paramètre ${name} est non valide.`);
  };
  each('code_postal', /^((0[1-9])|([1-8][0-9])|(9[0-8])|(2A)|(2B))[0-9]{3}$/);
  each('code_commune', /^([013-9]\d|2[AB1-9])\d{3}$/);
  each('departement', /^([013-8]\d?|2[aAbB1-9]?|9[0-59]?|97[12346])$/);
  each('categorie_entreprise', /^(PME|ETI|GE)$/);
  for (const [name, length] of [
    ['id_convention_collective', 4],
    ['id_finess', 9],
    ['id_uai', 8],
  ] as const) {
    const v = get(name);
    if (v !== undefined && v.length !== length)
      throw bad(`Le paramètre \`${name}\` doit contenir ${length} caractères.`);
  }
  for (const name of ['ca_min', 'ca_max', 'resultat_net_min', 'resultat_net_max'])
    integer(get(name), name, -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 0);
}

export function readQuery(params: URLSearchParams): SearchQuery {
  // An empty value is no value (curl's `&code_postal=`).
  const get = (n: string) => params.get(n)?.trim() || undefined;
  const page = integer(get('page'), 'page', 1, 1000, 1);
  const perPage = integer(get('per_page'), 'per_page', 1, 25, 10);
  integer(get('limite_matching_etablissements'), 'limite_matching_etablissements', 1, 100, 10);
  integer(get('page_etablissements'), 'page_etablissements', 1, 1000, 1);
  if (page * perPage > 10_000)
    throw bad(
      'Le nombre total de résultats est restreint à 10 000. Pour garantir cela, le produit du numéro de page ' +
        "(par défaut, page = 1) et du nombre de résultats par page (par défaut, per_page = 10), c'est-à-dire " +
        '`page * per_page`, ne doit pas excéder 10 000.',
    );

  const booleans: SearchQuery['booleans'] = {};
  for (const name of BOOLEAN_FILTERS) {
    const v = get(name);
    if (v !== undefined) booleans[name] = bool(v, name);
  }
  const etatV = get('etat_administratif');
  const etat = etatV === undefined ? undefined : oneOf(etatV, 'etat_administratif', ['A', 'C'] as const);
  const naturesV = get('nature_juridique');
  const natures = naturesV === undefined ? undefined : list(naturesV);
  if (natures?.some((n) => !/^\d{4}$/.test(n)))
    throw bad('Au moins un paramètre `nature_juridique` est non valide (4 chiffres attendus).');
  const person = personFilter(get);
  checkUnknownData(get);
  const unknownData = UNKNOWN_DATA_FILTERS.some((n) => get(n) !== undefined);

  const minimalV = get('minimal');
  const minimal = minimalV !== undefined && bool(minimalV, 'minimal');
  const includeV = get('include');
  const include = includeV === undefined ? undefined : list(includeV.toLowerCase());
  if (include?.some((f) => !(SECONDARY as readonly string[]).includes(f)))
    throw bad(`Au moins un champ à inclure est non valide. Les champs valides : ${JSON.stringify(SECONDARY)}.`);
  if (include?.length && !minimal)
    throw bad(
      'Veuillez indiquer si vous souhaitez une réponse minimale avec le filtre `minimal=True` avant de préciser ' +
        'les champs à inclure (paramètre `include`).',
    );

  const q = get('q');
  const compact = q?.replace(/ /g, '');
  const filtered = Object.keys(booleans).length > 0 || etat !== undefined || !!natures || !!person || unknownData;
  if (q === undefined && !filtered) throw bad('Veuillez indiquer au moins un paramètre de recherche.');
  if (q !== undefined && q.length < 3 && !filtered)
    throw bad('3 caractères minimum pour les termes de la requête (ou utilisez au moins un filtre)');
  return {
    ...(compact && /^\d{9}$/.test(compact) ? { siren: compact } : {}),
    ...(compact && /^\d{14}$/.test(compact) ? { siren: compact.slice(0, 9), siret: compact } : {}),
    ...(q !== undefined && !/^\d{9}$|^\d{14}$/.test(compact!) && { q }),
    page,
    perPage,
    fields: minimal ? new Set(include as Secondary[] | undefined) : DEFAULT_FIELDS,
    ...(etat && { etat }),
    ...(natures && { natures }),
    booleans,
    ...(person && { person }),
    unknownData,
  };
}

function personFilter(get: (n: string) => string | undefined): PersonFilter | undefined {
  if (!PERSON_FILTERS.some((n) => get(n) !== undefined)) return undefined;
  const p: PersonFilter = {};
  const nom = get('nom_personne');
  const prenoms = get('prenoms_personne');
  const min = get('date_naissance_personne_min');
  const max = get('date_naissance_personne_max');
  const type = get('type_personne');
  if (nom) p.nom = nom;
  if (prenoms) p.prenoms = prenoms;
  if (min) p.min = day(min, 'date_naissance_personne_min');
  if (max) p.max = day(max, 'date_naissance_personne_max');
  if (p.min && p.max && p.max < p.min) throw bad('Veuillez indiquer une date minimale inférieure à la date maximale.');
  if (type) p.type = oneOf(type, 'type_personne', ['dirigeant', 'elu'] as const);
  return p;
}
