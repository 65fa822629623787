// The Peppol step's dealings with the SML whose outcome depends on its answers (activities/peppol.ts runs the plan).
//
// Migration between SMPs, both ways:
// - inbound: a participant another SMP holds at the SML comes over with the migration key the company set in the
//   meta key `peppol-migration-key` (domain/party/peppol-migration.ts; sealed at rest, opened here): SML Migrate.
//   Without a key the step fails `sml-conflict` saying how to get one; a key the SML refuses fails it
//   `sml-migration-refused`.
// - outbound: the API prepares the migration of a participant of ours (api/peppol-v1.ts: SML PrepareToMigrate, the
//   key recorded as its hash in platform/store/peppol-migrations.ts). Our SMP keeps serving the participant until the
//   new SMP has migrated it; nothing watches for that (no sweep, no workflow): it is found out when someone looks —
//   the API's GET of the migration, or a step here that meets the participant — by our SML List no longer holding
//   a participant we prepared (one List for the step, read before the plan). Then the SML and the Directory are its
//   new provider's (the Directory follows the SML to the new SMP's business card): neither is touched, our record is
//   disabled and the migration marked done.
import { ApplicationFailure } from '@temporalio/activity';
import { SmlError, type SmlErrorKind } from '../integrations/peppol/sml-client';
import type { Clients } from '../integrations/clients';
import { isValidMigrationKey, MIGRATION_KEY_SPECIALS } from '../domain/party/migration-key';
import { migrationKeyOf, MigrationKeyMetaError, PEPPOL_MIGRATION_KEY_META } from '../domain/party/peppol-migration';
import { dataBoxFromConfig, type DataBox } from '../platform/crypto/data-box';
import { dropPendingMigration, markMigrated, preparedMigration } from '../platform/store/peppol-migrations';
import { disableParticipant } from '../platform/store/peppol-participants';
import type { ActivityDeps } from './deps';
import { rethrowRemote } from './remote-failure';

/** The SML's answers to a Migrate that say no for good (the WSDL's client faults); others are transport trouble. */
const MIGRATE_REFUSALS: readonly SmlErrorKind[] = ['BadRequestFault', 'NotFoundFault', 'UnauthorizedFault'];

const askPrevious = (id: string) =>
  `ask your previous Peppol provider (SMP) for a migration key for ${id} (they call SML PrepareToMigrate) and set it in the meta key ${PEPPOL_MIGRATION_KEY_META}, then run the registration again`;

export function smlSteps({ db, log, config }: ActivityDeps, sml: Clients['sml']) {
  // Opens the migration keys, sealed at rest (domain/party/peppol-migration.ts); made when first needed.
  let box: DataBox | undefined;

  /** Whether our SMP's SML List holds the participant. */
  async function smlHolds(id: string): Promise<boolean> {
    const ours = await sml.list().catch((e) => rethrowRemote(e, 'SML list'));
    return ours.includes(id);
  }

  /**
   * Which of the participants have moved to another SMP: we prepared their migration (the only way one leaves us) and
   * our SML List no longer holds them. One List call, and only when one of them has a prepared migration.
   */
  async function migratedAway(ids: string[]): Promise<Set<string>> {
    const prepared: string[] = [];
    for (const id of ids) if (await preparedMigration(db, id)) prepared.push(id);
    if (prepared.length === 0) return new Set();
    const ours = await sml.list().catch((e) => rethrowRemote(e, 'SML list'));
    return new Set(prepared.filter((id) => !ours.includes(id)));
  }

  /** The migration key the entry's meta gives for the participant, if any. */
  async function migrationKey(entryId: string, id: string): Promise<string | undefined> {
    try {
      return await migrationKeyOf(db, (box ??= dataBoxFromConfig(config)), entryId, id);
    } catch (err) {
      if (err instanceof MigrationKeyMetaError)
        throw ApplicationFailure.nonRetryable(
          `${err.message}: set it to the migration key your previous Peppol provider (SMP) gave you, or to an object mapping each participant id to its key`,
          'sml-migration-refused',
        );
      throw err;
    }
  }

  /**
   * Creates the participant at the SML. "Already exists" is success if it is ours (a previous run, or a migration
   * whose answer was lost: the List shows it); otherwise another SMP holds it, and it comes over with the key the
   * company set in `peppol-migration-key`, or the step fails saying how to get one.
   */
  async function smlCreate(id: string, entryId: string): Promise<void> {
    try {
      await sml.create(id);
      return;
    } catch (err) {
      if (!(err instanceof SmlError && err.alreadyExists)) rethrowRemote(err, `SML registration of ${id}`);
    }
    if (await smlHolds(id)) return;
    const key = await migrationKey(entryId, id);
    try {
      if (key === undefined)
        throw ApplicationFailure.nonRetryable(
          `${id} is registered at the SML by another SMP: ${askPrevious(id)}`,
          'sml-conflict',
        );
      await smlMigrate(id, key);
    } catch (err) {
      // A participant of ours that left (we prepared its migration): our record goes, as after an unregistration.
      if (err instanceof ApplicationFailure && err.nonRetryable && (await preparedMigration(db, id))) {
        await markMigrated(db, id);
        await disableParticipant(db, id, entryId);
      }
      throw err;
    }
  }

  /** SML Migrate with the company's key; the SML's refusals fail the step for good, saying what to ask for. */
  async function smlMigrate(id: string, key: string): Promise<void> {
    if (!isValidMigrationKey(key))
      throw ApplicationFailure.nonRetryable(
        `the migration key in ${PEPPOL_MIGRATION_KEY_META} for ${id} is not one the SML takes (8 to 24 characters ` +
          `without blanks, at least two upper-case letters, two lower-case letters, two digits and two of ` +
          `${MIGRATION_KEY_SPECIALS}): ask your previous Peppol provider (SMP) for the key they prepared for ${id} ` +
          `with SML PrepareToMigrate, and set it exactly as given, then run the registration again`,
        'sml-migration-refused',
      );
    try {
      await sml.migrate(id, key);
      log.info({ participantId: id }, 'peppol participant migrated from another SMP');
    } catch (err) {
      if (!(err instanceof SmlError && MIGRATE_REFUSALS.includes(err.kind)))
        rethrowRemote(err, `SML migration of ${id}`);
      // "Already yours" (a Migrate of ours whose answer was lost, raced by a retry): the List says.
      if (await smlHolds(id)) return;
      const why =
        err.kind === 'NotFoundFault'
          ? `the SML has no migration prepared for ${id} (${err.message}): ask your previous Peppol provider (SMP) to prepare it (SML PrepareToMigrate) and give you its migration key`
          : err.kind === 'UnauthorizedFault'
            ? `the SML refused the key in ${PEPPOL_MIGRATION_KEY_META} for ${id} (${err.message}): ask your previous Peppol provider (SMP) for the migration key they prepared for ${id} (SML PrepareToMigrate; preparing again replaces it)`
            : `the SML refused to migrate ${id} (${err.message}): ask your previous Peppol provider (SMP) for the migration key they prepared for ${id} (SML PrepareToMigrate)`;
      throw ApplicationFailure.nonRetryable(
        `${why}, set it in the meta key ${PEPPOL_MIGRATION_KEY_META}, then run the registration again`,
        'sml-migration-refused',
      );
    }
  }

  async function smlDelete(id: string): Promise<void> {
    try {
      await sml.delete(id);
    } catch (err) {
      // Gone already, or another SMP's now (BDMSL answers a participant of another SMP NotFound or Unauthorized).
      const gone =
        err instanceof SmlError &&
        (err.kind === 'NotFoundFault' || (err.kind === 'UnauthorizedFault' && !(await smlHolds(id))));
      if (!gone) rethrowRemote(err, `SML removal of ${id}`);
    }
    // The SML forgets a prepared migration with its participant: so do we.
    await dropPendingMigration(db, id);
  }

  return { migratedAway, smlCreate, smlDelete };
}
