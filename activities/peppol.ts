// Long file: the SML's answers (creation meeting another SMP, Migrate's refusals) are settled here, step by step.
// `peppol.register` / `peppol.unregister`: publish a party in our SMP, at the SML and in the Peppol Directory.
// The step reads first (the entry's records in our SMP, the participants wanted, which of them migrated away), then
// domain/peppol/publication-plan.ts decides what to publish, migrate and withdraw, in which order; this file runs
// those actions, settling what depends on the remotes' answers (an SML creation that meets another SMP, below).
// Every step is idempotent (an activity may run twice): re-creating what exists and deleting what is gone succeed.
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
import { z } from 'zod';
import { DOC_GROUPS, isDocGroup } from '../integrations/peppol/doc-groups';
import {
  formatParticipantId,
  frenchParticipantId,
  InvalidParticipantIdError,
  parseParticipantId,
  type ParticipantId,
} from '../integrations/peppol/participant-id';
import { SmlError, type SmlErrorKind } from '../integrations/peppol/sml-client';
import { isValidMigrationKey, MIGRATION_KEY_SPECIALS } from '../domain/party/migration-key';
import { migrationKeyOf, MigrationKeyMetaError, PEPPOL_MIGRATION_KEY_META } from '../domain/party/peppol-migration';
import { dropPendingMigration, markMigrated, preparedMigration } from '../platform/store/peppol-migrations';
import type { Clients } from '../integrations/clients';
import {
  disableParticipant,
  entryParticipants,
  markPublication,
  ParticipantTakenError,
  publishParticipant,
  VISIBILITIES,
  type Visibility,
} from '../platform/store/peppol-participants';
import {
  migrationCandidates,
  planPublication,
  wantsDirectory,
  wantsSml,
  type PublicationAction,
  type PublicationPlan,
} from '../domain/peppol/publication-plan';
import { approvedMandate } from '../platform/store/agreements';
import type { StepInput } from '../workflows/types';
import type { ActivityDeps } from './deps';
import type { Commit } from './journalled';
import { rethrowRemote } from './remote-failure';
import { entrySiren } from './entry-siren';
import { entrustedAddresses } from './entrusted-addresses';
import { entryDirectoryLines } from '../platform/store/directory-holdings';
import { dataBoxFromConfig, type DataBox } from '../platform/crypto/data-box';

const registerConfig = z.strictObject({
  // Every party here is French (it has a SIREN), hence `france` by default.
  doc_groups: z
    .array(z.string().refine(isDocGroup, { message: `a doc group is one of ${DOC_GROUPS.join(', ')}` }))
    .min(1)
    .default(['france']),
  visibility: z.enum(VISIBILITIES).default('smp+sml+peppol'),
  directory: z.boolean().default(true),
  disable: z.boolean().default(false),
});

export interface PeppolStepResult {
  /** One per invoicing address. */
  participantIds: string[];
  visibility?: Visibility;
  enabled: boolean;
  sml: boolean;
  directory: boolean;
}

type RegisterConfig = z.infer<typeof registerConfig>;

/** The SML's answers to a Migrate that say no for good (the WSDL's client faults); others are transport trouble. */
const MIGRATE_REFUSALS: readonly SmlErrorKind[] = ['BadRequestFault', 'NotFoundFault', 'UnauthorizedFault'];

const askPrevious = (id: string) =>
  `ask your previous Peppol provider (SMP) for a migration key for ${id} (they call SML PrepareToMigrate) and set it in the meta key ${PEPPOL_MIGRATION_KEY_META}, then run the registration again`;

export function peppolActivities(
  { db, log, config }: ActivityDeps,
  { sml, directory }: Pick<Clients, 'sml' | 'directory'>,
) {
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

  /**
   * The participants of the party's invoicing addresses, each within what its signed mandate entrusts, and of the
   * directory lines the entry holds besides (addresses taken over from another platform).
   */
  async function participantsOf(input: StepInput, siren: string, signed: unknown): Promise<ParticipantId[]> {
    // The addresses the directory step gave lines to, as it wrote them: a change of the meta since (while the job
    // waited for their start day) waits for the next address update, so Peppol never publishes what the directory
    // does not hold. Without a directory step (a workspace's definition), the addresses stated, within the mandate.
    const held = (await entryDirectoryLines(db, input.entryId)).map((l) => l.address);
    const addresses =
      held.length > 0 ? held : (await entrustedAddresses(db, input.entryId, siren, signed)).wanted.map((a) => a.id);
    try {
      return addresses.map((a) => frenchParticipantId(a));
    } catch (err) {
      if (err instanceof InvalidParticipantIdError)
        throw ApplicationFailure.nonRetryable(err.message, 'invalid-participant-id');
      throw err;
    }
  }

  /** The plan of the step (domain/peppol/publication-plan.ts), from what it reads first. */
  async function plan(input: StepInput, wanted: string[], cfg?: RegisterConfig): Promise<PublicationPlan> {
    const records = await entryParticipants(db, input.workspaceId, input.entryId);
    const read = { wanted, records, ...(cfg && { config: cfg }) };
    return planPublication({ ...read, migratedAway: await migratedAway(migrationCandidates(read)) });
  }

  /**
   * Runs the plan's actions in their order. The last, when it writes our record's flags, carries the step's journal
   * (journalled.ts): it is the step's end.
   */
  async function run(input: StepInput, actions: PublicationAction[], commit?: Commit): Promise<void> {
    for (const [i, a] of actions.entries())
      await act(input, a, commit && i === actions.length - 1 ? commit : (write) => write(db));
  }

  async function act(input: StepInput, a: PublicationAction, write: Commit): Promise<unknown> {
    const { participantId: id } = a;
    switch (a.kind) {
      case 'upsert':
        return upsert(input, a);
      case 'sml-create':
        return smlCreate(id, input.entryId);
      case 'sml-delete':
        return smlDelete(id);
      case 'directory-index':
        return directory.index(id).catch((e) => rethrowRemote(e, `Directory indexing of ${id}`));
      case 'directory-remove':
        return directory.remove(id).catch((e) => rethrowRemote(e, `Directory removal of ${id}`));
      case 'mark': {
        const { smlRegistered, directoryRegistered } = a;
        return write((q) => markPublication(q, id, input.entryId, { smlRegistered, directoryRegistered }));
      }
      case 'migrated':
        log.info(
          { participantId: id, entryId: input.entryId },
          'peppol participant migrated to another SMP: the SML and the Directory left to it',
        );
        return markMigrated(db, id);
      case 'disable':
        return disableParticipant(db, id, input.entryId);
    }
  }

  /** Our record of the participant, enabled for this entry: "already registered" when another entry's. */
  async function upsert(input: StepInput, a: Extract<PublicationAction, { kind: 'upsert' }>): Promise<void> {
    try {
      await publishParticipant(db, {
        participantId: a.participantId,
        workspaceId: input.workspaceId,
        entryId: input.entryId,
        docGroups: [...a.docGroups],
        visibility: a.visibility,
        directory: a.directory,
      });
    } catch (err) {
      // The specification's wording: "<scheme>:<code> is already registered".
      if (err instanceof ParticipantTakenError) {
        const pid = parseParticipantId(a.participantId);
        throw ApplicationFailure.nonRetryable(`${pid.icd}:${pid.code} is already registered`, 'already-registered');
      }
      throw err;
    }
  }

  /** Every participant of the entry leaves Peppol (our records kept, disabled). */
  async function withdrawAll(input: StepInput, message: string): Promise<PeppolStepResult> {
    const { withdrawn, actions } = await plan(input, []);
    await run(input, actions);
    log.info({ jobId: input.jobId, entryId: input.entryId, participantIds: withdrawn }, message);
    return { participantIds: withdrawn, enabled: false, sml: false, directory: false };
  }

  async function register(input: StepInput, commit: Commit = (write) => db.tx(write)): Promise<PeppolStepResult> {
    const parsed = registerConfig.safeParse(input.config ?? {});
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'config'}: ${i.message}`).join('; ');
      throw ApplicationFailure.nonRetryable(`peppol.register config is invalid: ${issues}`, 'invalid-config');
    }
    const cfg = parsed.data;
    if (cfg.disable) return withdrawAll(input, 'peppol participants disabled');

    const siren = await entrySiren(db, input);
    // Publishing makes the company reachable on Peppol: only with its signed, approved mandate.
    const mandate = await approvedMandate(db, input.entryId);
    if (!mandate) {
      throw ApplicationFailure.nonRetryable(
        'the party has no signed and approved mandate: peppol.register must follow gov-fr.agreement.sign and the approval wait',
        'mandate-not-approved',
      );
    }
    const participantIds = (await participantsOf(input, siren, mandate.invoicingAddresses)).map(formatParticipantId);
    // Participants of addresses the party no longer has (an address update) leave Peppol first.
    const { withdrawn, actions } = await plan(input, participantIds, cfg);
    await run(input, actions, commit);
    const ctx = { jobId: input.jobId, entryId: input.entryId };
    if (withdrawn.length > 0)
      log.info({ ...ctx, participantIds: withdrawn }, 'peppol participants of ended addresses unpublished');
    const result = {
      participantIds,
      visibility: cfg.visibility,
      enabled: true,
      sml: wantsSml(cfg.visibility),
      directory: wantsDirectory(cfg),
    };
    log.info(
      { ...ctx, participantIds, visibility: result.visibility, sml: result.sml, directory: result.directory },
      'peppol participants published',
    );
    return result;
  }

  async function unregister(input: StepInput): Promise<PeppolStepResult> {
    return withdrawAll(input, 'peppol participant unregistered');
  }

  return { 'peppol.register': register, 'peppol.unregister': unregister };
}

export type PeppolActivities = ReturnType<typeof peppolActivities>;
