// What a directory line addresses. The OpenAPI's "Ligne annuaire" is the level at which a recipient receives its
// invoices: SIREN, SIREN/SIRET or SIREN/SIRET/IdentifiantRoutage, or a SIREN with an addressing suffix.

/** The fictive platform every company is on until a PA registers it. */
export const DEFAULT_MATRICULE = '9998';

export interface Addressing {
  siren: string;
  siret?: string;
  identifiantRoutage?: string;
  suffixeAdressage?: string;
}

/** The line's identifiantAdressage: SIREN, SIREN_SIRET, SIREN_SIRET_ROUTAGE or SIREN_SUFFIXE. */
export function addressId(a: Addressing): string {
  const parts = [a.siren];
  if (a.siret) parts.push(a.siret, ...(a.identifiantRoutage ? [a.identifiantRoutage] : [])); // a routing code hangs on a SIRET
  if (a.suffixeAdressage) parts.push(a.suffixeAdressage);
  return parts.join('_');
}

/** A line for the whole company (no SIRET, no suffix). */
export const isSirenLevel = (a: Addressing): boolean => !a.siret && !a.suffixeAdressage;
