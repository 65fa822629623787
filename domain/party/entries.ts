// Entries: the party documents a workspace stores. A document is an org/party, validated as a French party, no larger
// than a party is; its SIREN is derived from it. Some meta keys are the service's own.
import type { Db } from '../../platform/store/db';
import { insertEntry } from '../../platform/store/entries';
import { DomainError } from '../errors';
import { isValidMigrationKey, MIGRATION_KEY_SPECIALS } from './migration-key';
import { MigrationKeyMetaError, migrationKeysIn, PEPPOL_MIGRATION_KEY_META } from './peppol-migration';
import { FORMER_MATRICULE_META, formerMatriculeFault } from './take-over';
import { assertPartySize } from './document-update';
import { INVOICING_ADDRESSES_META, invoicingAddressesValue, parseInvoicingAddresses } from './invoicing-addresses';
import { PARTY_SCHEMA_URL, frenchParty, sirenOf } from './index';

export interface NewEntry {
  data: Record<string, unknown>;
  key?: string;
  folder?: string;
}

export async function createPartyEntry(db: Db, workspaceId: string, id: string, input: NewEntry) {
  const { $schema, ...rest } = input.data as { $schema?: unknown };
  if ($schema !== undefined && $schema !== PARTY_SCHEMA_URL) {
    throw new DomainError(
      'unsupported-schema',
      `unsupported document schema ${JSON.stringify($schema)}: only ${PARTY_SCHEMA_URL} (org/party) entries are accepted`,
    );
  }
  const parsed = frenchParty.safeParse(rest);
  if (!parsed.success)
    throw new DomainError('invalid-request', 'invalid party', { invalid: { error: parsed.error, at: 'body.data' } });
  assertPartySize(parsed.data);
  return insertEntry(db, {
    id,
    workspaceId,
    key: input.key,
    folder: input.folder,
    docSchema: 'org/party',
    data: { $schema: PARTY_SCHEMA_URL, ...parsed.data },
    siren: sirenOf(parsed.data),
  });
}

/** Meta keys the service writes itself: a caller may read them, never forge or remove them. */
const SERVICE_META_KEYS = new Set(['approval-link', 'approval-decision']);

export function assertCallerMeta(key: string): void {
  if (SERVICE_META_KEYS.has(key)) throw new DomainError('service-meta', `meta key "${key}" is managed by the service`);
}

/**
 * A meta row as a caller may write it: not one of the service's keys, and a value the service reads checked now
 * (the invoicing addresses, stored with their defaults filled in), so that a mistake is a 400, not a failed step.
 */
export function callerMeta<M extends { value?: unknown }>(key: string, meta: M, siren: string | null, us: string): M {
  assertCallerMeta(key);
  if (key === PEPPOL_MIGRATION_KEY_META) checkMigrationKeys(meta.value);
  const notAConsent = key === FORMER_MATRICULE_META && formerMatriculeFault(meta.value, us);
  if (notAConsent) throw invalidValue(notAConsent);
  if (key !== INVOICING_ADDRESSES_META) return meta;
  if (!siren) throw new DomainError('invalid-data', 'the entry holds no valid party: correct it before its addresses');
  parseInvoicingAddresses(siren, meta.value, { now: new Date() });
  return { ...meta, value: invoicingAddressesValue.parse(meta.value) };
}

const invalidValue = (message: string) =>
  new DomainError('invalid-request', `invalid body.value: ${message}`, { field: { path: 'body.value', message } });

/** A migration key meta as peppol-migration.ts reads it, each key one the SML takes. */
function checkMigrationKeys(value: unknown): void {
  let keys;
  try {
    keys = migrationKeysIn(value);
  } catch (err) {
    if (err instanceof MigrationKeyMetaError) throw invalidValue(err.message);
    throw err;
  }
  const rule = `8 to 24 characters without blanks, with at least two upper-case letters, two lower-case letters, two digits and two of ${MIGRATION_KEY_SPECIALS}`;
  for (const key of [keys?.every, ...(keys?.byParticipant.values() ?? [])])
    if (key !== undefined && !isValidMigrationKey(key))
      throw invalidValue(
        `not a migration key the SML takes (${rule}): set it exactly as your previous provider gave it`,
      );
}
