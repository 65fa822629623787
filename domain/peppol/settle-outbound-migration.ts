// A company leaving us for another Peppol provider takes its participants with it (outbound migration): the API
// prepares it at the SML (PrepareToMigrate), the new SMP calls Migrate with the key. Nothing watches for that (no
// sweep, no workflow): it is found out when someone looks — the API's GET of the migration, or a Peppol step that
// meets the participant — by the one rule here: we prepared its migration and our SML List no longer holds it (had we
// removed it ourselves, its prepared migration would be gone with it). Then the SML and the Directory are its new
// provider's (the Directory follows the SML to the new SMP's business card): neither is touched; the migration is
// marked done and our record disabled, so our SMP no longer serves it.
import type { Logger } from 'pino';
import type { Db, Queryable } from '../../platform/store/db';
import { entryMigration, markMigrated, preparedMigration } from '../../platform/store/peppol-migrations';
import type { PreparedMigration } from '../../platform/store/peppol-migrations';
import { disableParticipant } from '../../platform/store/peppol-participants';
import type { SmlRegistry } from './ports';

type SmlList = Pick<SmlRegistry, 'list'>;

/**
 * Which of the participants have moved to another SMP: we prepared their migration (the only way one leaves us) and
 * our SML List no longer holds them. One List call, and only when one of them has a prepared migration.
 */
export async function migratedAway(db: Queryable, sml: SmlList, ids: readonly string[]): Promise<Set<string>> {
  const prepared: string[] = [];
  for (const id of ids) if (await preparedMigration(db, id)) prepared.push(id);
  return goneFromOurList(sml, prepared);
}

/** Of participants whose migration we prepared, those our SML List no longer holds. */
async function goneFromOurList(sml: SmlList, prepared: string[]): Promise<Set<string>> {
  if (prepared.length === 0) return new Set();
  const ours = await sml.list();
  return new Set(prepared.filter((id) => !ours.includes(id)));
}

/** A participant found migrated away: its migration marked done and our record disabled, together. */
export function settleMigratedAway(db: Db, participantId: string, entryId: string): Promise<PreparedMigration> {
  return db.tx(async (q) => {
    await disableParticipant(q, participantId, entryId);
    return (await markMigrated(q, participantId))!;
  });
}

/**
 * The use case of the API's GET: the migration prepared for the entry's participant (undefined: none), settled first
 * when the SML shows it done. Safe to repeat: it only records what already happened at the SML, once.
 */
export async function settleOutboundMigration(
  { db, log, sml }: { db: Db; log: Logger; sml: SmlList },
  at: { workspaceId: string; entryId: string; participantId: string },
): Promise<PreparedMigration | undefined> {
  const { entryId, participantId } = at;
  const m = await entryMigration(db, at.workspaceId, entryId, participantId);
  if (!m || m.migratedAt || !(await goneFromOurList(sml, [participantId])).has(participantId)) return m;
  const settled = await settleMigratedAway(db, participantId, entryId);
  log.info({ participantId, entryId }, 'peppol participant migrated to another SMP: our record disabled');
  return settled;
}
