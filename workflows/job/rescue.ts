// After a step failed for good: the failed provider's own rescue activity if it has one (the directory's cover),
// then every rescue step of the definition, each attempted (their failures are added to the faults); the job ends
// ERR with them.
import { proxyActivities, setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import { JOB_ACTIVITY_OPTIONS, type JobActivities } from '../../contract/activities';
import type { Fault, JobResult } from '../../contract/job';
import { pacedQueue, providerOf } from '../../contract/providers';
import type { JobCalls } from './calls';
import type { JobContext } from './context';
import { toFault } from './faults';

export async function rescue(ctx: JobContext, calls: JobCalls, fault: Fault): Promise<JobResult> {
  ctx.ending = true;
  ctx.faults.push(fault);
  setCurrentDetails(`Rescue after: ${fault.message}`);
  await providerRescue(ctx, fault);
  const steps = ctx.definition.rescue;
  for (const [i, step] of steps.entries()) {
    const last = i === steps.length - 1;
    try {
      await calls.step(step, last ? 'ERR' : 'RUN', ctx.journal.forRescue(ctx.faults)); // the last one ends the job
    } catch (failure) {
      const stepFault = toFault(step, failure);
      ctx.faults.push(stepFault);
      ctx.journal.failed(step.id, stepFault);
    }
  }
  if (ctx.journal.owing) await calls.record({ status: 'ERR', faults: [...ctx.faults] });
  ctx.attributes.flush();
  await ctx.end(`Ended ERR: ${ctx.faults[0]!.provider} failed (${ctx.faults[0]!.code}); the rescue ran`);
  return { status: 'ERR', faults: ctx.faults };
}

/** The failed provider's rescue (no SIREN left without a directory line); its own failure is one more fault. */
async function providerRescue(ctx: JobContext, fault: Fault): Promise<void> {
  const spec = providerOf(fault.provider);
  const name = spec?.kind === 'activity' ? spec.rescuedBy : undefined;
  if (!name) return;
  try {
    // The cover writes in the directory: at the directory's pace, as the step it rescues.
    const taskQueue = pacedQueue(workflowInfo().taskQueue, 'annuaire');
    await proxyActivities<JobActivities>({ ...JOB_ACTIVITY_OPTIONS[name], taskQueue })[name](ctx.ids);
  } catch (failure) {
    ctx.faults.push(toFault({ id: 'directory-cover', name: 'directory cover', provider: name }, failure));
  }
}
