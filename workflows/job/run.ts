// Running a job's steps: each step is one activity, which records its journal lines with its effect (the store
// derives them from the definition: the start of the approval wait after it, the job's end after the last); a failure
// becomes the job's fault and the rescue runs (rescue.ts). A cancellation (cancellation.ts) is taken between steps
// or during the approval wait (approval.ts); days the job waits for are in start-days.ts.
import { setHandler } from '@temporalio/workflow';
import type { Definition, JobInput, JobResult, Step } from '../../contract/job';
import { isApprovalWait } from '../../contract/providers';
import { WaitingFor } from '../../contract/search-attributes';
import { showWaitingForSignal } from '../../contract/signals';
import { ApprovalWait } from './approval';
import { JobCalls } from './calls';
import { cancelled, takeCancellations } from './cancellation';
import { JobContext } from './context';
import { Cancelled, StepFailed, WaitFailed, toFault } from './faults';
import { rescue } from './rescue';
import { effectDay, startDay } from './start-days';

export class JobRun {
  private readonly ctx: JobContext;
  private readonly calls: JobCalls;
  private readonly approval?: ApprovalWait; // only a definition with an approval wait takes approval signals
  private opened?: string; // the approval wait whose start the last step recorded
  private waived?: string; // the approval wait the last step recorded as not needed

  constructor(job: JobInput, definition: Definition) {
    this.ctx = new JobContext(job, definition);
    if (definition.steps.some(isApprovalWait)) this.approval = new ApprovalWait(this.ctx);
    this.calls = new JobCalls(this.ctx, this.approval);
    takeCancellations(this.ctx);
    setHandler(showWaitingForSignal, () => {
      this.ctx.attributes.rewrite(WaitingFor);
      this.ctx.attributes.flush(true);
    });
  }

  /** Runs a step's activity; a failure is the job's fault. */
  async step(step: Step): Promise<void> {
    const steps = this.ctx.definition.steps;
    const i = steps.indexOf(step);
    if (i === 0 && this.ctx.job.notBefore) await startDay(this.ctx, this.calls, step);
    if (this.ctx.cancelRequested) throw new Cancelled(step);
    const next = steps[i + 1];
    const opens = next && isApprovalWait(next) ? next.id : undefined;
    let result;
    try {
      result = await this.calls.step(step, opens ? 'WAIT' : next ? 'RUN' : 'OK');
      // The step found no approval needed (an address update within the signed mandate) and recorded the wait so.
      const waived = opens !== undefined && result.approvalNeeded === false;
      this.opened = waived ? undefined : opens;
      if (waived) this.waived = opens;
    } catch (err) {
      if (err instanceof WaitFailed) throw err; // the deadline passed while this step was refused: it never ran
      const fault = toFault(step, err);
      this.ctx.journal.failed(step.id, fault);
      throw new StepFailed(fault);
    }
    if (next && result.nextStepNotBefore !== undefined) await effectDay(this.ctx, this.calls, step, result);
  }

  /** Waits for an approval; the step after it records the wait's end, once the approval is recorded. */
  async approvalWait(step: Step): Promise<void> {
    if (this.ctx.cancelRequested) throw new Cancelled(step);
    if (this.waived === step.id) return;
    if (this.opened !== step.id) {
      // no step before it recorded the wait's start
      this.ctx.journal.owe([{ step: step.id, at: 'start', status: 'RUN' }], { status: 'WAIT' });
      await this.calls.record();
    }
    await this.approval!.begin(step);
  }

  /** The job ends OK: its last step recorded so, unless it was the approval wait. */
  async ok(): Promise<JobResult> {
    this.ctx.ending = true;
    if (this.ctx.journal.owing) await this.calls.record({ status: 'OK' });
    this.ctx.attributes.flush();
    await this.ctx.end(`Ended OK: all ${this.ctx.definition.steps.length} steps done`);
    return { status: 'OK', faults: [] };
  }

  /** After a failure the job ends ERR, its rescue run; after a cancellation it ends CANCEL, without the rescue. */
  async rescue(err: unknown): Promise<JobResult> {
    if (err instanceof Cancelled) return cancelled(this.ctx, this.calls, err.step);
    if (!(err instanceof StepFailed)) throw err; // a bug in workflow code: the task retries once fixed
    return rescue(this.ctx, this.calls, err.fault);
  }
}
