// The use case of `peppol.unregister` (and of `peppol.register` with `disable`): every participant of the entry
// leaves Peppol — the Directory, then the SML, then our record, kept disabled (publication-plan.ts).
import type { StepInput } from '../../contract/journal';
import type { StepResult } from '../../contract/activities';
import type { PeppolContext } from './peppol-context';
import type { Visibility } from './publication-plan';
import { publicationRun } from './run-publication';

export interface PeppolStepResult extends StepResult {
  /** One per invoicing address. */
  participantIds: string[];
  visibility?: Visibility;
  enabled: boolean;
  sml: boolean;
  directory: boolean;
}

/** `why`: what the log says of it. */
export async function withdrawParty(ctx: PeppolContext, input: StepInput, why: string): Promise<PeppolStepResult> {
  const run = publicationRun(ctx);
  const { withdrawn, actions } = await run.plan(input, []);
  await run.run(input, actions);
  ctx.log.info({ jobId: input.jobId, entryId: input.entryId, participantIds: withdrawn }, why);
  return { participantIds: withdrawn, enabled: false, sml: false, directory: false };
}
