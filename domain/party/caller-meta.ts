// A caller's meta rows on an entry: set (the values the service reads checked first, a migration key sealed), read
// and removed. The service's own keys (the wizard link, the decision) are never the caller's to forge or remove.
import type { DataBox } from '../../platform/crypto/data-box';
import type { Db } from '../../platform/store/db';
import { deleteMeta, getMeta, putMeta, type MetaInput } from '../../platform/store/entry-meta';
import { DomainError } from '../errors';
import { assertCallerMeta, callerMeta } from './entries';
import { PEPPOL_MIGRATION_KEY_META, putMigrationKeyMeta } from './peppol-migration';

export async function setCallerMeta(
  deps: { db: Db; box: DataBox; matricule: string },
  entry: { id: string; siren: string | null },
  key: string,
  input: MetaInput,
) {
  const meta = callerMeta(key, input, entry.siren, deps.matricule);
  // A migration key is a secret: sealed, answered masked (peppol-migration.ts).
  return key === PEPPOL_MIGRATION_KEY_META
    ? putMigrationKeyMeta(deps, entry, meta)
    : putMeta(deps.db, entry.id, key, meta);
}

export async function metaOf(db: Db, entryId: string, key: string) {
  const meta = await getMeta(db, entryId, key);
  if (!meta) throw new DomainError('not-found', `meta "${key}" of entry ${entryId} not found`);
  return meta;
}

export async function removeCallerMeta(db: Db, entryId: string, key: string): Promise<void> {
  assertCallerMeta(key);
  if (!(await deleteMeta(db, entryId, key)))
    throw new DomainError('not-found', `meta "${key}" of entry ${entryId} not found`);
}
