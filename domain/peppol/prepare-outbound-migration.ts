// A company moving to another Peppol provider: the migration of one of its participants prepared at the SML with a
// new key, which it hands to its new provider (whose SMP calls Migrate with it). Only the key's hash is kept; our SMP
// serves the participant until it has migrated (settle-outbound-migration.ts finds that out).
import type { Logger } from 'pino';
import type { Db } from '../../platform/store/db';
import { entryParticipants } from '../../platform/store/peppol-participants';
import { recordPreparedMigration } from '../../platform/store/peppol-migrations';
import { DomainError } from '../errors';
import { newMigrationKey } from '../party/migration-key';
import type { SmlRegistry } from './ports';

export async function prepareOutboundMigration(
  { db, log, sml }: { db: Db; log: Logger; sml: Pick<SmlRegistry, 'prepareToMigrate' | 'refusal'> },
  at: { workspaceId: string; entryId: string; participantId: string },
): Promise<{ key: string; preparedAt: string }> {
  const { workspaceId, entryId, participantId } = at;
  const records = await entryParticipants(db, workspaceId, entryId);
  const rec = records.find((p) => p.participantId === participantId);
  if (!rec) {
    const ours = records.filter((p) => p.enabled).map((p) => p.participantId);
    throw new DomainError(
      'not-found',
      `Peppol participant ${participantId} of entry ${entryId} (${ours.length > 0 ? `its participants: ${ours.join(', ')}` : 'it has none published yet'}) not found`,
    );
  }
  if (!rec.enabled)
    throw new DomainError(
      'not-published',
      `${participantId} is no longer published by us (unregistered, its address ended, or migrated away): there is no migration to prepare`,
    );
  if (!rec.smlRegistered)
    throw new DomainError(
      'not-in-sml',
      `${participantId} is not registered at the SML by us (visibility ${rec.visibility}, or its registration has not reached the SML): there is no migration to prepare — the new provider registers it at the SML directly`,
    );
  const key = newMigrationKey();
  try {
    await sml.prepareToMigrate(participantId, key);
  } catch (err) {
    const fault = sml.refusal(err)?.fault;
    if (fault === 'NotFoundFault' || fault === 'UnauthorizedFault')
      throw new DomainError(
        'not-in-sml',
        `the SML does not hold ${participantId} for our SMP (${(err as Error).message}): there is no migration to prepare`,
      );
    throw err;
  }
  const m = await recordPreparedMigration(db, { participantId, workspaceId, entryId, key });
  log.info({ participantId, entryId }, 'peppol migration prepared'); // never the key
  return { key, preparedAt: m.preparedAt };
}
