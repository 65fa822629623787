// A job's activities, called: each step's with ids (its activity records the lines the store derives with its
// effect), and the journal activity for what no step carries. After the approval wait, a call refused for want of a recorded approval waits
// for another hint.
import { proxyActivities, setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import { JOB_ACTIVITY_OPTIONS, type JobActivities, type StepResult } from '../../contract/activities';
import type { Step } from '../../contract/job';
import type { JobStatusChange, RescueCall } from '../../contract/journal';
import { isActivityProvider, pacedQueue, providerOf } from '../../contract/providers';
import { JobStatus, PartyState } from '../../contract/search-attributes';
import type { ApprovalWait } from './approval';
import type { JobContext } from './context';
import { StepFailed, refusedForApproval } from './faults';

const { 'job.journal': recordJournal } = proxyActivities<JobActivities>(JOB_ACTIVITY_OPTIONS['job.journal']);

export class JobCalls {
  constructor(
    private readonly ctx: JobContext,
    private readonly approval?: ApprovalWait,
  ) {}

  /**
   * Runs the step's activity, called with ids: the store derives what it records, and `shows` is the job's status
   * it leaves (shown in the Temporal UI). A rescue step also gets the faults and the failed steps' lines.
   */
  step(step: Step, shows: JobStatusChange['status'], rescue?: RescueCall): Promise<StepResult> {
    const provider = step.provider;
    const spec = providerOf(provider);
    if (!isActivityProvider(provider) || spec?.kind !== 'activity') {
      return Promise.reject(
        new StepFailed({
          provider,
          code: 'provider-unknown',
          message: `step "${step.name}" uses provider "${provider}", which this worker does not know`,
        }),
      );
    }
    if (spec.outside) this.ctx.outside = true;
    setCurrentDetails(this.ctx.stepDetails(step));
    const run = proxyActivities<JobActivities>({
      ...spec.options,
      ...(spec.paced && { taskQueue: pacedQueue(workflowInfo().taskQueue, spec.paced) }),
      summary: step.summary ?? step.name,
    })[provider];
    const call = { ...this.ctx.ids, stepId: step.id, ...(rescue && { rescue }) };
    return this.untilApproved(() => run(call)).then((result) => {
      this.ctx.journal.recorded();
      // A step that found its approval wait not needed recorded it so, and the job runs on.
      this.ctx.attributes.set(JobStatus, shows === 'WAIT' && result.approvalNeeded === false ? 'RUN' : shows);
      if (result.partyState) this.ctx.attributes.set(PartyState, result.partyState);
      return result;
    });
  }

  /** Records what is owed when no step carries it (a definition ending on the wait, a failed last rescue step). */
  record(status?: JobStatusChange): Promise<void> {
    const journal = this.ctx.journal.forOwed(status);
    return this.untilApproved(() => recordJournal({ jobId: this.ctx.job.jobId, journal })).then(() =>
      this.recorded(journal.status),
    );
  }

  /** What was owed is recorded; the job's status shows in the Temporal UI. */
  recorded(status?: JobStatusChange): void {
    this.ctx.journal.recorded();
    if (status) this.ctx.attributes.set(JobStatus, status.status);
  }

  /**
   * Once the approval wait has begun, a call refused for want of a recorded approval waits for another hint and is
   * made again. Promises chained rather than awaited: each promise a workflow makes costs a stack trace (the SDK's
   * promise hook), and every step passes here.
   */
  private untilApproved<R>(attempt: () => Promise<R>): Promise<R> {
    this.ctx.attributes.flush();
    const approval = this.approval;
    if (!approval?.begun) return attempt();
    return attempt().catch(async (err: unknown) => {
      if (!refusedForApproval(err)) throw err;
      await approval.next();
      return this.untilApproved(attempt);
    });
  }
}
