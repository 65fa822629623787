// A job cancelled through the API (the cancel update): taken between steps or during the approval wait, until a
// step acting outside the store has started; one activity records it all.
import { ApplicationFailure, condition, proxyActivities, setHandler } from '@temporalio/workflow';
import { JOB_ACTIVITY_OPTIONS, type JobActivities } from '../../contract/activities';
import { CANCELLED, CANCELLED_BEFORE_START, type Fault, type JobResult, type Step } from '../../contract/job';
import { isApprovalWait } from '../../contract/providers';
import { PartyState } from '../../contract/search-attributes';
import { CANCEL_REFUSED, cancelUpdate } from '../../contract/signals';
import type { JobCalls } from './calls';
import type { JobContext } from './context';

const { 'job.cancel': recordCancel } = proxyActivities<JobActivities>(JOB_ACTIVITY_OPTIONS['job.cancel']);

/** Takes the cancel update: it completes once the job has ended (the caller reads its status from the store). */
export function takeCancellations(ctx: JobContext): void {
  setHandler(
    cancelUpdate,
    async () => {
      ctx.cancelRequested = true;
      await condition(() => ctx.ended);
    },
    { validator: () => refuseCancel(ctx) },
  );
}

function refuseCancel(ctx: JobContext): void {
  if (ctx.ending)
    throw ApplicationFailure.create({
      type: CANCEL_REFUSED.ended,
      message: 'the job has ended or is being rescued',
      nonRetryable: true,
    });
  if (ctx.outside)
    throw ApplicationFailure.create({
      type: CANCEL_REFUSED.outside,
      message: 'a step acting outside the store has started',
      nonRetryable: true,
    });
}

/** The job cancelled at `step` (which did not run, or was the approval wait). */
export async function cancelled(ctx: JobContext, calls: JobCalls, step: Step): Promise<JobResult> {
  ctx.ending = true;
  const fault: Fault = { provider: 'transform', code: CANCELLED, message: 'cancelled through the API' }; // the reason is in the store
  // The wait ends cancelled; a step that had not started shows it never ran (no start line).
  const waited = isApprovalWait(step);
  ctx.journal.owe(
    [{ step: step.id, at: 'end', status: 'KO', code: CANCELLED, ...(!waited && { message: CANCELLED_BEFORE_START }) }],
    { status: 'CANCEL', faults: [fault] },
  );
  const journal = ctx.journal.forOwed();
  const { jobId, entryId } = ctx.job;
  const state = await recordCancel({ jobId, entryId, stepId: step.id, journal });
  calls.recorded(journal.status);
  ctx.attributes.set(PartyState, state); // the party's state the activity recorded
  ctx.attributes.flush();
  const at = `step ${ctx.position(step) + 1} of ${ctx.definition.steps.length}: ${step.name}`;
  await ctx.end(`Cancelled through the API at ${at}`);
  return { status: 'CANCEL', faults: [fault] };
}
