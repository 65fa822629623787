// The use case of `gov-fr.directory.disable`: the entry's lines of ours end today (plan.ts `release`), the SIREN going
// back to the fictive platform unless another platform receives for the company from then on (it moved to them).
import type { StepInput } from '../../contract/journal';
import type { StepResult } from '../../contract/activities';
import type { EntryFacts } from '../../platform/store/entry-facts';
import { forgetDirectoryLines, releaseDirectoryLine } from '../../platform/store/directory-holdings';
import type { Commit } from '../jobs/step-commit';
import { sirenIn } from '../party/entry-siren';
import { directoryWork, sameId, type DirectoryContext } from './carry-out';
import { today } from './lines';

export interface ReleaseResult extends StepResult {
  ended: number[];
  /** The 9998 line put back, when one was needed (nobody took the SIREN over). */
  restoredIdInstance?: number;
  /** The platforms receiving for the company now: it moved to them. */
  takenOverBy?: string[];
}

export async function releaseParty(
  ctx: DirectoryContext,
  step: { input: StepInput; commit: Commit; facts: EntryFacts },
): Promise<ReleaseResult> {
  const { input, commit, facts } = step;
  const siren = sirenIn(facts, input.entryId);
  const ids = { jobId: input.jobId, entryId: input.entryId, stepId: input.stepId, siren };
  // Another entry's registration of the same SIREN is not this entry's to end.
  const holder = facts.holder;
  if (holder && holder !== input.entryId) {
    ctx.log.info({ ...ids, holder }, 'directory line held by another entry: left in place');
    return { ended: [] };
  }
  const { plan, lines } = await directoryWork(ctx).carryOut({ kind: 'release', siren, on: today() }, new Map(), ids);
  const restored = lines.find((l) => l.created && l.platform !== ctx.us && sameId(l.address, siren));
  const result: ReleaseResult = {
    ended: plan.writes.flatMap((w) => (w.kind !== 'create' && w.line.platform === ctx.us ? [w.line.idInstance] : [])),
    ...(restored && { restoredIdInstance: restored.idInstance }),
    ...(plan.receivingAfter.length > 0 && { takenOverBy: plan.receivingAfter }),
  };
  await commit(async (q) => {
    await releaseDirectoryLine(q, siren, input.entryId);
    await forgetDirectoryLines(q, input.entryId);
  });
  return result;
}
