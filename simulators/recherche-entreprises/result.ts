// A company as the API answers it: the contract's `result`. What the simulator is not told (address, activity, size,
// labels, finances) is left out where the contract does not allow null and null where it does, never made up; the
// labels derivable from the legal form (association, individual entrepreneur) are derived. The head office's SIRET is
// the SIREN with NIC 0001 and its Luhn key, so that it is a valid SIRET.
import type { Dirigeant, StoredCompany } from './companies';

/** The secondary fields `include` may ask for (with minimal=true); by default all but the score. */
export const SECONDARY = [
  'complements',
  'dirigeants',
  'finances',
  'matching_etablissements',
  'siege',
  'score',
  'tva',
] as const;
export type Secondary = (typeof SECONDARY)[number];
export const DEFAULT_FIELDS: ReadonlySet<Secondary> = new Set(SECONDARY.filter((f) => f !== 'score'));

/** INSEE's legal forms of associations (the contract's est_association filter). */
const ASSOCIATIONS = ['5195', '9210', '9220', '9221', '9222', '9223', '9224', '9230', '9240', '9260'];

/** The simulator's labels: those the legal form tells, every other one false (the company holds none). */
export function flags(c: StoredCompany): Record<string, boolean> {
  return {
    est_association: ASSOCIATIONS.includes(c.nature_juridique),
    est_entrepreneur_individuel: c.nature_juridique === '1000',
    est_collectivite_territoriale: c.nature_juridique.startsWith('72'),
  };
}

function luhnKey(digits13: string): string {
  for (let key = 0; key < 10; key++) {
    const all = digits13 + key;
    let sum = 0;
    for (let i = 0; i < all.length; i++) {
      let d = Number(all[all.length - 1 - i]);
      if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
      sum += d;
    }
    if (sum % 10 === 0) return String(key);
  }
  return '0'; // unreachable: one key in ten always fits
}

export const siegeSiret = (siren: string) => siren + '0001' + luhnKey(siren + '0001');

/** The head office, with the fields `siege` and `etablissement` share. */
function establishment(c: StoredCompany) {
  return {
    siret: siegeSiret(c.siren),
    est_siege: true,
    etat_administratif: c.etat_administratif === 'A' ? 'A' : 'F',
    date_creation: c.date_creation,
    date_debut_activite: c.date_creation,
    date_fermeture: null,
    code_postal: null,
    region: null,
    epci: null,
    liste_enseignes: null,
    nom_commercial: null,
    statut_diffusion_etablissement: 'O',
    tranche_effectif_salarie: null,
    annee_tranche_effectif_salarie: null,
  };
}

const dirigeant = (d: Dirigeant) =>
  d.type_dirigeant === 'personne morale'
    ? { siren: d.siren, denomination: d.denomination, qualite: d.qualite, type_dirigeant: d.type_dirigeant }
    : {
        nom: d.nom,
        prenoms: d.prenoms,
        ...((d.annee_de_naissance ?? d.date_de_naissance) && {
          annee_de_naissance: d.annee_de_naissance ?? d.date_de_naissance!.slice(0, 4),
        }),
        ...(d.date_de_naissance && { date_de_naissance: d.date_de_naissance }),
        qualite: d.qualite,
        ...(d.nationalite && { nationalite: d.nationalite }),
        type_dirigeant: d.type_dirigeant,
      };

function complements(c: StoredCompany) {
  const f = flags(c);
  return {
    convention_collective_renseignee: false,
    liste_idcc: [],
    egapro_renseignee: false,
    est_achats_responsables: false,
    est_alim_confiance: false,
    est_association: f.est_association,
    est_avocat: false,
    est_bio: false,
    est_entrepreneur_individuel: f.est_entrepreneur_individuel,
    est_entrepreneur_spectacle: false,
    est_ess: false,
    est_finess: false,
    est_organisme_formation: false,
    est_qualiopi: false,
    liste_id_organisme_formation: [],
    est_rge: false,
    est_administration: false,
    est_siae: false,
    est_societe_mission: false,
    est_uai: false,
    est_patrimoine_vivant: false,
    bilan_ges_renseigne: false,
    identifiant_association: null,
    statut_entrepreneur_spectacle: null,
    type_siae: null,
  };
}

/**
 * The result for `c` with the secondary `fields`; `siret`: the one a SIRET lookup asked for (its matching
 * establishment is the head office when it is its SIRET, else none).
 */
export function result(
  c: StoredCompany,
  fields: ReadonlySet<Secondary>,
  score: number,
  siret?: string,
): Record<string, unknown> {
  const open = c.etat_administratif === 'A';
  const secondary: Record<Secondary, () => unknown> = {
    siege: () => ({ ...establishment(c), departement: null, complement_adresse: null }),
    dirigeants: () => c.dirigeants.map(dirigeant),
    complements: () => complements(c),
    finances: () => ({}),
    matching_etablissements: () => (siret && siret === siegeSiret(c.siren) ? [establishment(c)] : []),
    score: () => score,
    tva: () => [],
  };
  return {
    siren: c.siren,
    nom_complet: c.nom_raison_sociale.toUpperCase(),
    nom_raison_sociale: c.nom_raison_sociale,
    sigle: null,
    nombre_etablissements: 1,
    nombre_etablissements_ouverts: open ? 1 : 0,
    date_creation: c.date_creation,
    date_mise_a_jour: c.date_mise_a_jour,
    date_mise_a_jour_insee: c.date_mise_a_jour,
    date_mise_a_jour_rne: c.date_mise_a_jour,
    etat_administratif: c.etat_administratif,
    nature_juridique: c.nature_juridique,
    statut_diffusion: 'O',
    ...Object.fromEntries(SECONDARY.filter((f) => fields.has(f)).map((f) => [f, secondary[f]()])),
  };
}
