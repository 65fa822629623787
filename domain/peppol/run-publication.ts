// What the Peppol use cases share: read first (the entry's records in our SMP, the participants wanted, which of them
// migrated away), ask the plan (publication-plan.ts) what to publish, migrate and withdraw, in which order, then run
// its actions. Every action is idempotent (a step may run twice): re-creating what exists and deleting what is gone
// succeed.
import type { StepInput } from '../../contract/journal';
import { markMigrated } from '../../platform/store/peppol-migrations';
import {
  disableParticipant,
  entryParticipants,
  markPublication,
  ParticipantTakenError,
  publishParticipant,
} from '../../platform/store/peppol-participants';
import { StepRefused } from '../errors';
import type { Commit } from '../jobs/step-commit';
import { doing } from '../remote-failure';
import type { PeppolContext } from './peppol-context';
import {
  migrationCandidates,
  planPublication,
  type PublicationAction,
  type PublicationConfig,
  type PublicationPlan,
} from './publication-plan';
import { migratedAway } from './settle-outbound-migration';
import { smlRegistration } from './sml-registration';

export function publicationRun(ctx: PeppolContext) {
  const { db, log, sml, directory } = ctx;
  const registration = smlRegistration(ctx);

  /** The plan of the step, from what it reads first. */
  async function plan(
    input: StepInput,
    wanted: string[],
    config?: { publication: PublicationConfig; card: string },
  ): Promise<PublicationPlan> {
    const records = await entryParticipants(db, input.workspaceId, input.entryId);
    const read = { wanted, records, ...(config && { config: config.publication, card: config.card }) };
    const gone = await doing('SML list', () => migratedAway(db, sml, migrationCandidates(read)));
    return planPublication({ ...read, migratedAway: gone });
  }

  /**
   * Runs the plan's actions in their order. The last, when it writes our record's flags, carries the step's journal
   * (`commit`): it is the step's end.
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
        return registration.create(id, input.entryId);
      case 'sml-delete':
        return registration.remove(id);
      case 'directory-index':
        return doing(`Directory indexing of ${id}`, () => directory.index(id));
      case 'directory-remove':
        return doing(`Directory removal of ${id}`, () => directory.remove(id));
      case 'mark': {
        const { smlRegistered, directoryRegistered, directoryCard } = a;
        return write((q) =>
          markPublication(q, id, input.entryId, { smlRegistered, directoryRegistered, directoryCard }),
        );
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
      // The specification's wording: "<scheme>:<code> is already registered" (the id's value, `ICD:code`).
      if (err instanceof ParticipantTakenError) {
        const value = a.participantId.slice(a.participantId.indexOf('::') + 2);
        throw new StepRefused('already-registered', `${value} is already registered`);
      }
      throw err;
    }
  }

  return { plan, run };
}
