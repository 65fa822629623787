// The take-over consent an integrator sets on an entry: the meta row `fr-former-matricule`, holding the matricule of
// the platform whose directory lines the company asks us to take over ("0042", or { "matricule": "0042" }). Read here
// only: the mandate states it, and the directory step checks it against the signed mandate.
import type { Queryable } from '../../platform/store/db';
import { getMeta } from '../../platform/store/entry-meta';

export const FORMER_MATRICULE_META = 'fr-former-matricule';

/** The matricule a meta value names; undefined for a value that names none. */
export function formerMatriculeIn(value: unknown): string | undefined {
  const m = typeof value === 'object' && value !== null ? (value as { matricule?: unknown }).matricule : value;
  return typeof m === 'string' && m.trim() ? m.trim() : undefined;
}

/**
 * Why a meta value cannot be a take-over consent, or undefined when it can: the matricule of another real platform,
 * 4 digits exactly — neither the fictive platform 9998 (a company on it needs no consent) nor ours.
 */
export function formerMatriculeFault(value: unknown, us: string): string | undefined {
  const m = typeof value === 'object' && value !== null ? (value as { matricule?: unknown }).matricule : value;
  if (typeof m !== 'string' || !/^\d{4}$/.test(m))
    return 'a platform matricule: 4 digits, as a string or { "matricule": "0042" }';
  if (m === '9998')
    return 'the fictive platform 9998 needs no take-over consent: a company on it registers without fr-former-matricule';
  if (m === us) return `${us} is our own matricule: name the platform the company leaves, or remove the meta key`;
  return undefined;
}

export async function formerMatriculeOf(db: Queryable, entryId: string): Promise<string | undefined> {
  return formerMatriculeIn((await getMeta(db, entryId, FORMER_MATRICULE_META))?.value);
}
