// `peppol.register` / `peppol.unregister`: each reads its input (its config, the entry's facts read with the step's
// start or here), runs its use case in domain/peppol/ over the SML and Directory clients the worker built once, and
// maps its failures to Temporal's (remote-failure.ts).
import { ApplicationFailure } from '@temporalio/activity';
import { z } from 'zod';
import { DOC_GROUPS, isDocGroup } from '../integrations/peppol/doc-groups';
import {
  formatParticipantId,
  frenchParticipantId,
  InvalidParticipantIdError,
} from '../integrations/peppol/participant-id';
import { smlRegistry } from '../integrations/peppol/sml-registry';
import type { Clients } from '../integrations/clients';
import { StepRefused } from '../domain/errors';
import type { Commit } from '../domain/jobs/step-commit';
import { INVOICING_ADDRESSES_META } from '../domain/party/invoicing-addresses';
import type { PeppolContext } from '../domain/peppol/peppol-context';
import { publishParty } from '../domain/peppol/publish-party';
import { withdrawParty } from '../domain/peppol/withdraw-party';
import { dataBoxFromConfig, type DataBox } from '../platform/crypto/data-box';
import { readEntryFacts, type EntryFacts } from '../platform/store/entry-facts';
import { VISIBILITIES } from '../platform/store/peppol-participants';
import type { StepInput } from '../contract/journal';
import type { ActivityDeps } from './deps';
import { withTemporalFailures } from './remote-failure';

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

/** An invoicing address's participant id; one that makes none fails the step for good. */
function participantIdOf(address: string): string {
  try {
    return formatParticipantId(frenchParticipantId(address));
  } catch (err) {
    if (err instanceof InvalidParticipantIdError) throw new StepRefused('invalid-participant-id', err.message);
    throw err;
  }
}

/** The Peppol use cases' context over the clients the worker built once (the reconciliation's actions share it). */
export function peppolContext(
  { db, log, config }: ActivityDeps,
  { sml, directory }: Pick<Clients, 'sml' | 'directory'>,
): PeppolContext {
  let box: DataBox | undefined;
  return {
    db,
    log,
    sml: smlRegistry(sml),
    directory,
    keyBox: () => (box ??= dataBoxFromConfig(config)),
    participantIdOf,
  };
}

export function peppolActivities(deps: ActivityDeps, clients: Pick<Clients, 'sml' | 'directory'>) {
  const { db } = deps;
  const ctx = peppolContext(deps, clients);

  /** `given`: the facts read with the step's start (PEPPOL_FACTS), read here when the step is called on its own. */
  async function register(input: StepInput, commit: Commit = (write) => db.tx(write), given?: EntryFacts) {
    const parsed = registerConfig.safeParse(input.config ?? {});
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'config'}: ${i.message}`).join('; ');
      throw ApplicationFailure.nonRetryable(`peppol.register config is invalid: ${issues}`, 'invalid-config');
    }
    const facts = given ?? (await readEntryFacts(db, input, PEPPOL_FACTS));
    return withTemporalFailures(() => publishParty(ctx, { input, commit, facts, config: parsed.data }));
  }

  const unregister = (input: StepInput) =>
    withTemporalFailures(() => withdrawParty(ctx, input, 'peppol participant unregistered'));

  return { register, unregister };
}

export type PeppolActivities = ReturnType<typeof peppolActivities>;
