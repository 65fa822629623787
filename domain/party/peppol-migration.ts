// The migration keys a company hands us to bring its Peppol participants over from its previous provider's SMP: the
// meta row `peppol-migration-key`. The previous provider calls the SML's PrepareToMigrate with a key and gives it to
// the company; the Peppol step (activities/peppol.ts) then calls Migrate with it for a participant the SML says
// another SMP holds. Its value is one of:
//   - a string, the key: it serves every participant of the entry that another SMP holds (one key per company, the
//     common case: "Ab12@#cd…");
//   - an object mapping participant ids to keys, when the previous provider prepared each participant with its own key:
//     { "iso6523-actorid-upis::0225:552032534": "Ab12@#cd…", "0225:552032534_eu": "Xy34$%ef…" } — an id with or
//     without its scheme, in any case. A participant the object does not name has no key.
// Read here only; whether a key follows the SML's rule (8 to 24 characters…) is checked where it is used. The meta is
// read as it is when the step runs (not as at signing): a key is a technical secret, not something the mandate says.
// The key is spent once the migration is done: the row may then be removed.
import type { Queryable } from '../../platform/store/db';
import { getMeta } from '../../platform/store/entries';

export const PEPPOL_MIGRATION_KEY_META = 'peppol-migration-key';

const SCHEME_PREFIX = 'iso6523-actorid-upis::';

/** The keys a meta value gives: one for every participant, or one per participant (by normalised id). */
export interface MigrationKeys {
  every?: string;
  byParticipant: Map<string, string>;
}

/** A meta value that names no key the way this file says. */
export class MigrationKeyMetaError extends Error {}

/** `iso6523-actorid-upis::0225:x` or `0225:x`, in any case → `iso6523-actorid-upis::0225:x` (values are lowercased). */
export const participantKeyOf = (id: string): string => {
  const s = id.trim().toLowerCase();
  return s.startsWith(SCHEME_PREFIX) ? s : SCHEME_PREFIX + s;
};

/** The keys a meta value gives; undefined for no value; MigrationKeyMetaError for a value of another shape. */
export function migrationKeysIn(value: unknown): MigrationKeys | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') {
    if (!value.trim()) throw new MigrationKeyMetaError(`${PEPPOL_MIGRATION_KEY_META} is empty`);
    return { every: value, byParticipant: new Map() };
  }
  if (typeof value !== 'object' || Array.isArray(value))
    throw new MigrationKeyMetaError(
      `${PEPPOL_MIGRATION_KEY_META} holds a key (a string) or an object mapping participant ids to keys`,
    );
  const byParticipant = new Map<string, string>();
  for (const [id, key] of Object.entries(value)) {
    if (typeof key !== 'string' || !key.trim())
      throw new MigrationKeyMetaError(`${PEPPOL_MIGRATION_KEY_META}: the key for ${id} is not a non-empty string`);
    byParticipant.set(participantKeyOf(id), key);
  }
  return { byParticipant };
}

/** The key for one participant (its normalised id), if the keys give one. */
export function migrationKeyFor(keys: MigrationKeys | undefined, participantId: string): string | undefined {
  if (!keys) return undefined;
  return keys.byParticipant.get(participantKeyOf(participantId)) ?? keys.every;
}

/** The key the entry's meta gives for a participant; MigrationKeyMetaError for a value this file cannot read. */
export async function migrationKeyOf(db: Queryable, entryId: string, participantId: string) {
  const meta = await getMeta(db, entryId, PEPPOL_MIGRATION_KEY_META);
  return migrationKeyFor(migrationKeysIn(meta?.value), participantId);
}
