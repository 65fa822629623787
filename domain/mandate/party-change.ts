// A change to a party's document (PATCH /silo/v1/entries/{id}), against its mandate's lifecycle: until the mandate
// is signed any field may change, and a mandate already issued is issued again under the next number; once it is
// signed and under review, what it says cannot change; a registered party may change it, and signs a new mandate
// through the address update (the one it is registered under stays in force until then); the SIREN never changes
// once a registration has started. One transaction, the entry and its mandate locked: a signature cannot slip in between.
import { DomainError } from '../errors';
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import { PARTY_SCHEMA_URL, frenchParty, sirenOf } from '../party';
import { changedMandateFacts, sirenInDocument } from '../party/mandate-facts';
import { lockMandate } from '../../platform/store/mandates';
import { reissueMandate } from '../../platform/store/mandate-numbers';
import { dropIdentityDocuments } from '../../platform/store/identity-documents';
import type { Db } from '../../platform/store/db';
import {
  INVALID_DATA,
  getEntry,
  lockEntryRow,
  registrationStarted,
  writeEntryUpdate,
  type EntryView,
} from '../../platform/store/entries';
import { activeJobOf } from '../../platform/store/jobs';
import { ADDRESS_UPDATE_WORKFLOW_ID } from '../jobs/builtins';

export type PartyChangeCode =
  | 'not-found'
  | 'unsupported-schema'
  | 'invalid-data'
  | 'siren-locked'
  | 'mandate-signed'
  | 'draft-refused'
  | 'job-running';

export class PartyChangeError extends DomainError<PartyChangeCode> {}

export interface PartyChange {
  /** The new document from the current one (a whole document, or a patch applied). */
  apply: (current: Record<string, unknown>) => unknown;
  /** Keep a document that fails validation, with its faults; no registration starts until it is fixed. */
  allowInvalid: boolean;
  folder?: string;
}

/** What a registered party whose mandate's facts changed does next: sign a new mandate through this workflow. */
export interface MandateRenewal {
  changed: string[];
  workflow_id: string;
}

/**
 * The entry as changed; the number of its mandate when the change issued it again; the renewal a registered party's
 * change asks for.
 */
export async function changeParty(
  deps: { db: Db; log: Logger },
  workspaceId: string,
  entryId: string,
  change: PartyChange,
): Promise<EntryView & { mandate_number?: string; mandate_renewal?: MandateRenewal }> {
  return deps.db.tx(async (q) => {
    const entry = await lockEntryRow(q, workspaceId, entryId);
    if (!entry) throw new PartyChangeError('not-found', `entry ${entryId} not found`);
    const next = change.apply(entry.data as Record<string, unknown>);
    const { $schema, ...rest } = (next ?? {}) as Record<string, unknown>;
    if ($schema !== undefined && $schema !== PARTY_SCHEMA_URL) {
      throw new PartyChangeError(
        'unsupported-schema',
        `unsupported document schema ${JSON.stringify($schema)}: only ${PARTY_SCHEMA_URL} (org/party) entries are accepted`,
      );
    }
    const parsed = frenchParty.safeParse(rest);
    if (!parsed.success && !change.allowInvalid)
      throw new PartyChangeError('invalid-data', 'invalid party', { invalid: { error: parsed.error, at: 'data' } });
    if (!parsed.success && (entry.state === 'registered' || (await activeJobOf(q, entryId)))) {
      // What a registration signs, checks and publishes is the document as it is: no draft while one runs or holds.
      throw new PartyChangeError(
        'draft-refused',
        `entry ${entryId} ${entry.state === 'registered' ? 'is registered' : 'has a job running'}: its party must stay valid (allow_invalid is for drafts). ${parsed.error.issues[0] ? `data.${parsed.error.issues[0].path.join('.')}: ${parsed.error.issues[0].message}` : ''}`,
      );
    }
    const data = { $schema: PARTY_SCHEMA_URL, ...(parsed.success ? parsed.data : rest) };
    const siren = parsed.success ? sirenOf(parsed.data) : (sirenInDocument(rest) ?? null);

    if (siren !== entry.siren && (await registrationStarted(q, entryId))) {
      throw new PartyChangeError(
        'siren-locked',
        `the SIREN of entry ${entryId} (${entry.siren}) cannot change: a registration of it has started. Register SIREN ${siren ?? '(none)'} as a new entry`,
      );
    }
    const changed = changedMandateFacts(entry.data, data);
    const reissued = changed.length ? await mandateAfterChange(q, entry, changed) : undefined;
    if (reissued)
      deps.log.info({ entryId, mandate: reissued }, 'mandate issued again: the party changed before signing');

    const faults = parsed.success
      ? []
      : parsed.error.issues.map((i) => ({
          provider: 'silo',
          code: INVALID_DATA,
          message: `data.${i.path.map(String).join('.')}: ${i.message}`,
        }));
    const fields = changedFields(entry.data as Record<string, unknown>, data);
    const faultsBefore = entry.draft_faults ?? [];
    const nothing =
      !fields.length && (change.folder ?? entry.folder) === entry.folder && isDeepStrictEqual(faultsBefore, faults);
    if (nothing) return (await getEntry(q, workspaceId, entryId))!; // no write, no event
    const view = await writeEntryUpdate(q, {
      id: entryId,
      data,
      siren: parsed.success ? siren : entry.siren,
      folder: change.folder,
      faults,
      event: {
        changed: fields,
        ...(changed.length && { mandate_facts: changed }),
        ...(reissued && { mandate_number: reissued }),
      },
    });
    const renewal = changed.length && !reissued && entry.state === 'registered';
    return {
      ...view,
      ...(reissued && { mandate_number: reissued }),
      ...(renewal && { mandate_renewal: { changed, workflow_id: ADDRESS_UPDATE_WORKFLOW_ID } }),
    };
  });
}

/**
 * What a change to the mandate's facts does to the entry's mandate: nothing when none is being signed (a registered
 * party renews it through the address update), a new number when it is issued but unsigned; refused when it is
 * signed and not yet decided.
 */
async function mandateAfterChange(
  q: Parameters<Parameters<Db['tx']>[0]>[0],
  entry: { id: string; state: string | null },
  changed: string[],
): Promise<string | undefined> {
  const fields = changed.join(', ');
  const mandate = await lockMandate(q, entry.id);
  const job = mandate && (await activeJobOf(q, entry.id));
  // A registered party's job that did not issue its mandate (an unregistration, an address update past its renewal)
  // acts on what the party says: no change to what the mandate says while it runs.
  if (entry.state === 'registered' && job && job.id !== mandate.job_id)
    throw new PartyChangeError(
      'job-running',
      `job ${job.id} is running on entry ${entry.id} under its mandate, which names its ${fields}: let it end (or cancel it: POST /transform/v1/jobs/${job.id}/cancel), then change them`,
    );
  if (!mandate || job?.id !== mandate.job_id) return undefined; // a new registration issues a new mandate
  if (mandate.signed || mandate.submitted_at) {
    const again = entry.state === 'registered' ? 'run the address update again' : 'register the entry again';
    throw new PartyChangeError(
      'mandate-signed',
      `mandate ${mandate.mandate_number} is signed: it states the ${fields} as they were, and changing them would alter it. ` +
        `Cancel job ${job.id} (POST /transform/v1/jobs/${job.id}/cancel) and ${again} to sign a new mandate`,
    );
  }
  const number = await reissueMandate(q, mandate, new Date().toISOString().slice(0, 10));
  // Another signer shows their own identity document: the one uploaded was someone else's.
  if (changed.some((f) => SIGNER_IDENTITY.includes(f))) await dropIdentityDocuments(q, entry.id);
  return number;
}

const SIGNER_IDENTITY = ['people[0].name', 'people[0].identities[0].code'];

/** The document's top-level fields that differ, as the `party.updated` event names them. */
function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  return [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .filter((k) => !isDeepStrictEqual(before[k], after[k]))
    .sort();
}
