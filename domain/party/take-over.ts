// The take-over consent an integrator sets on an entry: the meta row `fr-former-matricule`, holding the matricule of
// the platform whose directory lines the company asks us to take over ("0042", or { "matricule": "0042" }). Read here
// only: the mandate states it, and the directory step checks it against the signed mandate.
import type { Queryable } from '../../platform/store/db';
import { getMeta } from '../../platform/store/entries';

export const FORMER_MATRICULE_META = 'fr-former-matricule';

/** The matricule a meta value names; undefined for a value that names none. */
export function formerMatriculeIn(value: unknown): string | undefined {
  const m = typeof value === 'object' && value !== null ? (value as { matricule?: unknown }).matricule : value;
  return typeof m === 'string' && m.trim() ? m.trim() : undefined;
}

export async function formerMatriculeOf(db: Queryable, entryId: string): Promise<string | undefined> {
  return formerMatriculeIn((await getMeta(db, entryId, FORMER_MATRICULE_META))?.value);
}
