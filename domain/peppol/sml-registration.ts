// A participant's registration at the SML, whose outcome depends on the SML's answers (run-publication.ts calls it).
// Inbound migration: a participant another SMP holds at the SML comes over with the migration key the company set in
// the meta key `peppol-migration-key` (domain/party/peppol-migration.ts; sealed at rest, opened here): SML Migrate.
// Without a key the step fails `sml-conflict` saying how to get one; a key the SML refuses fails it
// `sml-migration-refused`. A participant of ours that left (we prepared its migration) is settled as such
// (settle-outbound-migration.ts).
import { StepRefused } from '../errors';
import { doing, refusedForGood, whileDoing } from '../remote-failure';
import { isValidMigrationKey, MIGRATION_KEY_SPECIALS } from '../party/migration-key';
import { migrationKeyOf, MigrationKeyMetaError, PEPPOL_MIGRATION_KEY_META } from '../party/peppol-migration';
import { dropPendingMigration, preparedMigration } from '../../platform/store/peppol-migrations';
import type { PeppolContext } from './peppol-context';
import { settleMigratedAway } from './settle-outbound-migration';

const askPrevious = (id: string) =>
  `ask your previous Peppol provider (SMP) for a migration key for ${id} (they call SML PrepareToMigrate) and set it in the meta key ${PEPPOL_MIGRATION_KEY_META}, then run the registration again`;

export function smlRegistration({ db, log, sml, keyBox }: PeppolContext) {
  /** Whether our SMP's SML List holds the participant. */
  const smlHolds = async (id: string) => (await doing('SML list', () => sml.list())).includes(id);

  /** The migration key the entry's meta gives for the participant, if any. */
  async function migrationKey(entryId: string, id: string): Promise<string | undefined> {
    try {
      return await migrationKeyOf(db, keyBox(), entryId, id);
    } catch (err) {
      if (err instanceof MigrationKeyMetaError)
        throw new StepRefused(
          'sml-migration-refused',
          `${err.message}: set it to the migration key your previous Peppol provider (SMP) gave you, or to an object mapping each participant id to its key`,
        );
      throw err;
    }
  }

  /**
   * Creates the participant at the SML. "Already exists" is success if it is ours (a previous run, or a migration
   * whose answer was lost: the List shows it); otherwise another SMP holds it, and it comes over with the key the
   * company set in `peppol-migration-key`, or the step fails saying how to get one.
   */
  async function create(id: string, entryId: string): Promise<void> {
    try {
      await sml.create(id);
      return;
    } catch (err) {
      if (!sml.refusal(err)?.alreadyExists) throw whileDoing(`SML registration of ${id}`, err);
    }
    if (await smlHolds(id)) return;
    const key = await migrationKey(entryId, id);
    try {
      if (key === undefined)
        throw new StepRefused('sml-conflict', `${id} is registered at the SML by another SMP: ${askPrevious(id)}`);
      await migrate(id, key);
    } catch (err) {
      // A participant of ours that left (we prepared its migration): our record goes, as after an unregistration.
      if ((err instanceof StepRefused || refusedForGood(err)) && (await preparedMigration(db, id)))
        await settleMigratedAway(db, id, entryId);
      throw err;
    }
  }

  /** SML Migrate with the company's key; the SML's refusals fail the step for good, saying what to ask for. */
  async function migrate(id: string, key: string): Promise<void> {
    if (!isValidMigrationKey(key))
      throw new StepRefused(
        'sml-migration-refused',
        `the migration key in ${PEPPOL_MIGRATION_KEY_META} for ${id} is not one the SML takes (8 to 24 characters ` +
          `without blanks, at least two upper-case letters, two lower-case letters, two digits and two of ` +
          `${MIGRATION_KEY_SPECIALS}): ask your previous Peppol provider (SMP) for the key they prepared for ${id} ` +
          `with SML PrepareToMigrate, and set it exactly as given, then run the registration again`,
      );
    try {
      await sml.migrate(id, key);
      log.info({ participantId: id }, 'peppol participant migrated from another SMP');
    } catch (err) {
      const refused = sml.refusal(err);
      if (!refused) throw whileDoing(`SML migration of ${id}`, err);
      // "Already yours" (a Migrate of ours whose answer was lost, raced by a retry): the List says.
      if (await smlHolds(id)) return;
      const said = (err as Error).message;
      const why =
        refused.fault === 'NotFoundFault'
          ? `the SML has no migration prepared for ${id} (${said}): ask your previous Peppol provider (SMP) to prepare it (SML PrepareToMigrate) and give you its migration key`
          : refused.fault === 'UnauthorizedFault'
            ? `the SML refused the key in ${PEPPOL_MIGRATION_KEY_META} for ${id} (${said}): ask your previous Peppol provider (SMP) for the migration key they prepared for ${id} (SML PrepareToMigrate; preparing again replaces it)`
            : `the SML refused to migrate ${id} (${said}): ask your previous Peppol provider (SMP) for the migration key they prepared for ${id} (SML PrepareToMigrate)`;
      throw new StepRefused(
        'sml-migration-refused',
        `${why}, set it in the meta key ${PEPPOL_MIGRATION_KEY_META}, then run the registration again`,
      );
    }
  }

  async function remove(id: string): Promise<void> {
    try {
      await sml.delete(id);
    } catch (err) {
      // Gone already, or another SMP's now (BDMSL answers a participant of another SMP NotFound or Unauthorized).
      const fault = sml.refusal(err)?.fault;
      const gone = fault === 'NotFoundFault' || (fault === 'UnauthorizedFault' && !(await smlHolds(id)));
      if (!gone) throw whileDoing(`SML removal of ${id}`, err);
    }
    // The SML forgets a prepared migration with its participant: so do we.
    await dropPendingMigration(db, id);
  }

  return { create, remove };
}
