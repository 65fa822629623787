// `peppol.register` / `peppol.unregister`: publish a party in our SMP, at the SML and in the Peppol Directory.
// The step reads first (the entry's records in our SMP, the participants wanted, which of them migrated away), then
// domain/peppol/publication-plan.ts decides what to publish, migrate and withdraw, in which order; this file runs
// those actions. What depends on the SML's answers (a creation that meets another SMP, Migrate's refusals, a
// participant that moved away) is settled in peppol-sml.ts.
// Every step is idempotent (an activity may run twice): re-creating what exists and deleting what is gone succeed.
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
import { markMigrated } from '../platform/store/peppol-migrations';
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
import type { StepResult } from '../contract/activities';
import type { StepInput } from '../contract/journal';
import type { ActivityDeps } from './deps';
import type { Commit } from './journalled';
import { rethrowRemote } from './remote-failure';
import { sirenIn } from './entry-siren';
import { entrustedAddressesIn } from './entrusted-addresses';
import { smlSteps } from './peppol-sml';
import { readEntryFacts, type EntryFacts } from '../platform/store/entry-facts';
import { INVOICING_ADDRESSES_META } from '../domain/party/invoicing-addresses';

/** The metas the Peppol step reads with its start (entry-facts.ts). */
export const PEPPOL_FACTS = [INVOICING_ADDRESSES_META] as const;

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

export interface PeppolStepResult extends StepResult {
  /** One per invoicing address. */
  participantIds: string[];
  visibility?: Visibility;
  enabled: boolean;
  sml: boolean;
  directory: boolean;
}

type RegisterConfig = z.infer<typeof registerConfig>;

export function peppolActivities(
  { db, log, config }: ActivityDeps,
  { sml, directory }: Pick<Clients, 'sml' | 'directory'>,
) {
  const { migratedAway, smlCreate, smlDelete } = smlSteps({ db, log, config }, sml);

  /**
   * The participants of the party's invoicing addresses, each within what its signed mandate entrusts, and of the
   * directory lines the entry holds besides (addresses taken over from another platform).
   */
  function participantsOf(facts: EntryFacts, siren: string, signed: unknown): ParticipantId[] {
    // The addresses the directory step gave lines to, as it wrote them: a change of the meta since (while the job
    // waited for their start day) waits for the next address update, so Peppol never publishes what the directory
    // does not hold. Without a directory step (a workspace's definition), the addresses stated, within the mandate.
    const held = facts.lines.map((l) => l.address);
    const addresses = held.length > 0 ? held : entrustedAddressesIn(facts.metas, siren, signed).wanted.map((a) => a.id);
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

  /** `given`: the facts read with the step's start (PEPPOL_FACTS), read here when the step is called on its own. */
  async function register(
    input: StepInput,
    commit: Commit = (write) => db.tx(write),
    given?: EntryFacts,
  ): Promise<PeppolStepResult> {
    const parsed = registerConfig.safeParse(input.config ?? {});
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'config'}: ${i.message}`).join('; ');
      throw ApplicationFailure.nonRetryable(`peppol.register config is invalid: ${issues}`, 'invalid-config');
    }
    const cfg = parsed.data;
    if (cfg.disable) return withdrawAll(input, 'peppol participants disabled');

    const facts = given ?? (await readEntryFacts(db, input, PEPPOL_FACTS));
    const siren = sirenIn(facts, input.entryId);
    // Publishing makes the company reachable on Peppol: only with its signed, approved mandate.
    const mandate = facts.mandate;
    if (!mandate) {
      throw ApplicationFailure.nonRetryable(
        'the party has no signed and approved mandate: peppol.register must follow gov-fr.agreement.sign and the approval wait',
        'mandate-not-approved',
      );
    }
    const participantIds = participantsOf(facts, siren, mandate.invoicingAddresses).map(formatParticipantId);
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

  return { register, unregister };
}

export type PeppolActivities = ReturnType<typeof peppolActivities>;
