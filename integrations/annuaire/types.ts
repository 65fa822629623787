// Directory lines as the API returns them, flattened: the spec nests dateDebutEffet and idInstance under
// `historisation`, which every caller would otherwise have to dig out.
import type {
  AnnuaireLine,
  AnnuaireNewLine,
  AnnuaireNewRoutingCode,
  LineAddressing,
} from '../../domain/directory/annuaire';
import { z } from 'zod';

// The lines and routing codes are the port's (domain/directory/annuaire.ts): the client is what satisfies it.
export type { AnnuaireLine, AnnuaireNewLine, AnnuaireNewRoutingCode, LineAddressing };

/** The fictive platform every company is on until a PA registers it. */
export const DEFAULT_MATRICULE = '9998';

export interface LineFilters {
  siren?: string;
  siret?: string;
  matriculePlateforme?: string;
  suffixeAdressage?: string;
  identifiantAdressage?: string;
  /** Lines in force on that day (YYYY-MM-DD). */
  dateObservation?: string;
  /** Lines whose period meets [dateDebutRecherche, dateFinRecherche]. */
  dateDebutRecherche?: string;
  dateFinRecherche?: string;
  /** Every line, history included. */
  modeAudit?: boolean;
}

/** The identifier of an address: SIREN, SIREN_SIRET, SIREN_SIRET_ROUTAGE or SIREN_SUFFIXE. */
export function addressId(l: {
  siren: string;
  siret?: string;
  identifiantRoutage?: string;
  suffixeAdressage?: string;
}): string {
  return [l.siren, l.siret, l.siret && l.identifiantRoutage, l.suffixeAdressage].filter(Boolean).join('_');
}

export const isSirenLevel = (l: Pick<AnnuaireLine, 'siret' | 'suffixeAdressage'>): boolean =>
  !l.siret && !l.suffixeAdressage;

// Days as the directory counts them (UTC), for the client's callers.
export { today } from '../../domain/directory/lines';

const opt = z
  .string()
  .nullish()
  .transform((v) => v ?? undefined);

/** ligneAnnuairePayloadHisto(UleEtaRou) → AnnuaireLine. Lenient on extra members, strict on what we use. */
export const wireLine = z
  .object({
    identifiantAdressage: z.string(),
    siren: z.string(),
    siret: opt,
    identifiantRoutage: opt,
    suffixeAdressage: opt,
    matriculePlateforme: z.string(),
    dateFinEffet: z.string().nullish(),
    dateFinEffective: opt,
    historisation: z.object({
      idInstance: z.number().int(),
      dateDebutEffet: z.string(),
      masque: z.boolean().nullish(),
    }),
  })
  .transform((w): AnnuaireLine => ({
    idInstance: w.historisation.idInstance,
    identifiantAdressage: w.identifiantAdressage,
    siren: w.siren,
    ...(w.siret && { siret: w.siret }),
    ...(w.identifiantRoutage && { identifiantRoutage: w.identifiantRoutage }),
    ...(w.suffixeAdressage && { suffixeAdressage: w.suffixeAdressage }),
    matriculePlateforme: w.matriculePlateforme,
    dateDebutEffet: w.historisation.dateDebutEffet,
    dateFinEffet: w.dateFinEffet ?? null,
    ...(w.dateFinEffective && { dateFinEffective: w.dateFinEffective }),
    ...(w.historisation.masque && { masked: true }),
  }));

export const wireSearch = z.object({
  nombre_total_resultats: z.number().int().optional(),
  resultats: z.array(wireLine).default([]),
});

export const wireCreated = z.object({
  idInstance: z.number().int(),
  identifiantAdressage: z.string(),
  dateDebutEffet: z.string(),
});
export type CreatedLine = z.infer<typeof wireCreated>;

/** A company (unité légale) as the directory knows it: its own name and administrative state. */
export interface AnnuaireCompany {
  siren: string;
  raisonSociale: string;
  /** A: active, C: ceased (cessée). */
  etatAdministratif: 'A' | 'C';
  typeEntite?: string;
}

/** uniteLegalePayloadHisto → AnnuaireCompany (GET /siren/code-insee:{siren}). */
export const wireCompany = z
  .object({ siren: z.string(), raisonSociale: z.string(), etatAdministratif: z.enum(['A', 'C']), typeEntite: opt })
  .transform((w): AnnuaireCompany => ({
    siren: w.siren,
    raisonSociale: w.raisonSociale,
    etatAdministratif: w.etatAdministratif,
    ...(w.typeEntite && { typeEntite: w.typeEntite }),
  }));

/**
 * A routing code to create (createCodeRoutageBody): an identifiantRoutage under a SIRET (a service, a GLN…): the
 * directory port's (domain/directory/annuaire.ts), which this client satisfies.
 */

/**
 * A routing code as the directory returns it. The read schemas of 1.11.0 (codeRoutagePayloadHisto) do not carry
 * natureEtablissement: it is only there if the directory sends it all the same.
 */
export interface RoutingCode extends Omit<AnnuaireNewRoutingCode, 'natureEtablissement'> {
  idInstance: number;
  natureEtablissement?: AnnuaireNewRoutingCode['natureEtablissement'];
}

/** _code_routage_post_201_response. */
export const wireRoutingCodeCreated = z
  .object({ idInstance: z.number().int(), siret: opt, identifiantRoutage: opt })
  .transform((w) => ({ idInstance: w.idInstance }));

/** codeRoutagePayloadHisto(UleEta) → RoutingCode. Lenient on extra members, strict on what we use. */
export const wireRoutingCode = z
  .object({
    siret: z.string(),
    identifiantRoutage: z.string(),
    libelleCodeRoutage: z.string(),
    etatAdministratif: z.enum(['A', 'F']),
    natureEtablissement: z
      .enum(['Privé', 'Public'])
      .nullish()
      .transform((v) => v ?? undefined),
    typeIdentifiantRoutage: opt,
    gestionEngagementJuridique: z
      .boolean()
      .nullish()
      .transform((v) => v ?? undefined),
    historisation: z.object({ idInstance: z.number().int() }),
  })
  .transform((w): RoutingCode => ({
    idInstance: w.historisation.idInstance,
    siret: w.siret,
    identifiantRoutage: w.identifiantRoutage,
    libelleCodeRoutage: w.libelleCodeRoutage,
    ...(w.natureEtablissement && { natureEtablissement: w.natureEtablissement }),
    etatAdministratif: w.etatAdministratif,
    ...(w.typeIdentifiantRoutage && { typeIdentifiantRoutage: w.typeIdentifiantRoutage }),
    ...(w.gestionEngagementJuridique !== undefined && { gestionEngagementJuridique: w.gestionEngagementJuridique }),
  }));
