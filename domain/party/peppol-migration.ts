// The migration keys a company hands us to bring its Peppol participants over from its previous provider's SMP: the
// meta row `peppol-migration-key`. The previous provider calls the SML's PrepareToMigrate with a key and gives it to
// the company; the Peppol step (domain/peppol/sml-registration.ts) then calls Migrate with it for a participant the SML says
// another SMP holds. Its value is one of:
//   - a string, the key: it serves every participant of the entry that another SMP holds (one key per company, the
//     common case: "Ab12@#cd…");
//   - an object mapping participant ids to keys, when the previous provider prepared each participant with its own key:
//     { "iso6523-actorid-upis::0225:552032534": "Ab12@#cd…", "0225:552032534_eu": "Xy34$%ef…" } — an id with or
//     without its scheme, in any case. A participant the object does not name has no key.
// Read here only; whether a key follows the SML's rule (8 to 24 characters…) is checked where it is used. The meta is
// read as it is when the step runs (not as at signing): a key is a technical secret, not something the mandate says.
// The key is spent once the migration is done: the row may then be removed.
//
// The object form names only participants of the entry: those of its invoicing addresses (`0225:<address id>`, one
// per address of `fr-invoicing-addresses`, the SIREN alone without it) and of the directory lines it holds — what the
// Peppol step would publish. Any other id is refused (400, naming it).
//
// The value is a secret: stored sealed (platform/crypto/data-box.ts, bound to the entry and the key), the row's value
// masked ("********" for each key, the participant ids kept), as the API shows it; only the Peppol step opens it.
import type { Logger } from 'pino';
import type { DataBox } from '../../platform/crypto/data-box';
import type { Queryable } from '../../platform/store/db';
import { entryDirectoryLines } from '../../platform/store/directory-holdings';
import {
  getSecretMeta,
  maskedMetaValue,
  putMeta,
  sealClearSecretMeta,
  type MetaInput,
  type MetaView,
} from '../../platform/store/entry-meta';
import { DomainError } from '../errors';
import { INVOICING_ADDRESSES_META, invoicingAddressesOf } from './invoicing-addresses';

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

/** What a meta secret is sealed with: the entry and the key (a blob copied into another row does not open). */
export const secretMetaContext = (entryId: string, key: string) => `meta:${entryId}:${key}`;

const sealValue = (box: DataBox, entryId: string, key: string, value: unknown) =>
  box.seal(Buffer.from(JSON.stringify(value), 'utf8'), secretMetaContext(entryId, key));

/** The meta value as the caller set it: opened when sealed, as is for a row written before values were sealed. */
async function migrationKeyValue(db: Queryable, box: DataBox, entryId: string): Promise<unknown> {
  const row = await getSecretMeta(db, entryId, PEPPOL_MIGRATION_KEY_META);
  if (!row) return undefined;
  if (!row.sealed) return row.value;
  return JSON.parse(box.open(row.sealed, secretMetaContext(entryId, PEPPOL_MIGRATION_KEY_META)).toString('utf8'));
}

/** The key the entry's meta gives for a participant; MigrationKeyMetaError for a value this file cannot read. */
export async function migrationKeyOf(db: Queryable, box: DataBox, entryId: string, participantId: string) {
  return migrationKeyFor(migrationKeysIn(await migrationKeyValue(db, box, entryId)), participantId);
}

/** The participants the entry's migration keys may name (normalised): those the Peppol step would publish. */
async function ownParticipants(db: Queryable, entryId: string, siren: string): Promise<Set<string>> {
  const stated = (await invoicingAddressesOf(db, entryId, siren)).addresses.map((a) => a.id);
  const held = (await entryDirectoryLines(db, entryId)).map((l) => l.address);
  return new Set([...stated, ...held].map((address) => participantKeyOf(`0225:${address}`)));
}

/** At most this many ids are named in a refusal. */
const NAMED = 10;
const listed = (ids: string[]) =>
  ids
    .slice(0, NAMED)
    .map((id) => JSON.stringify(id))
    .join(', ') + (ids.length > NAMED ? ` and ${ids.length - NAMED} more` : '');

/**
 * Refuses (400, naming them) the participant ids of an object form that are not the entry's own participants, or name
 * one participant twice. A string (one key for every participant) names none.
 */
export async function checkMigrationKeyParticipants(
  db: Queryable,
  entry: { id: string; siren: string | null },
  value: unknown,
): Promise<void> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return;
  const ids = Object.keys(value);
  if (!entry.siren)
    throw new DomainError('invalid-data', 'the entry holds no valid party: correct it before its migration keys');
  const own = await ownParticipants(db, entry.id, entry.siren);
  const foreign = ids.filter((id) => !own.has(participantKeyOf(id)));
  const fault = (message: string) =>
    new DomainError('invalid-request', `invalid body.value: ${message}`, { field: { path: 'body.value', message } });
  if (foreign.length > 0)
    throw fault(
      `${PEPPOL_MIGRATION_KEY_META} names participants that are not this entry's: ${listed(foreign)}. ` +
        `It may name only the participants of its invoicing addresses (${listed([...own])}); ` +
        `set ${INVOICING_ADDRESSES_META} first for other addresses of the company`,
    );
  const seen = new Map<string, string>();
  const twice: string[] = [];
  for (const id of ids) {
    const first = seen.get(participantKeyOf(id));
    if (first !== undefined) twice.push(`${first} and ${id}`);
    else seen.set(participantKeyOf(id), id);
  }
  if (twice.length > 0)
    throw fault(
      `${PEPPOL_MIGRATION_KEY_META} names a participant twice (ids ignore case and scheme): ${twice.join('; ')}`,
    );
}

/**
 * Sets the entry's migration keys as a caller wrote them (checked by domain/party/entries.ts callerMeta): their
 * participants the entry's own, the value sealed, the row's value masked. Answers the row as the API shows it.
 */
export async function putMigrationKeyMeta(
  deps: { db: Queryable; box: DataBox },
  entry: { id: string; siren: string | null },
  meta: MetaInput,
): Promise<MetaView> {
  await checkMigrationKeyParticipants(deps.db, entry, meta.value);
  const sealed =
    meta.value === undefined || meta.value === null
      ? null
      : sealValue(deps.box, entry.id, PEPPOL_MIGRATION_KEY_META, meta.value);
  return putMeta(deps.db, entry.id, PEPPOL_MIGRATION_KEY_META, {
    ...meta,
    value: maskedMetaValue(meta.value),
    sealed,
  });
}

/**
 * The data migration of migration keys written in clear (before they were sealed): each sealed, its value masked.
 * Idempotent; returns how many rows it sealed.
 */
export function sealClearMigrationKeys(db: Queryable, box: DataBox): Promise<number> {
  return sealClearSecretMeta(db, (entryId, key, value) => sealValue(box, entryId, key, value));
}

const sweeps = new WeakMap<object, Promise<void>>();

/**
 * sealClearMigrationKeys once per store and process (the entries API awaits it before its first request); a
 * failure is logged and tried again on the next call.
 */
export function migrationKeysSealed(db: Queryable, box: DataBox, log?: Logger): Promise<void> {
  let sweep = sweeps.get(db);
  if (!sweep) {
    sweep = sealClearMigrationKeys(db, box).then(
      (n) => void (n > 0 && log?.info({ rows: n }, `${PEPPOL_MIGRATION_KEY_META}: values kept in clear sealed`)),
      (err: unknown) => {
        sweeps.delete(db);
        log?.warn({ err }, `${PEPPOL_MIGRATION_KEY_META}: could not seal the values kept in clear`);
      },
    );
    sweeps.set(db, sweep);
  }
  return sweep;
}
