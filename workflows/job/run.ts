// Running a job's steps: each step is one activity, which records its journal lines with its effect; a failure
// becomes the job's fault and the rescue steps run, each attempted, before the job ends ERR.
import { proxyActivities, setCurrentDetails } from '@temporalio/workflow';
import { JOURNAL_ACTIVITY, PROVIDERS, isApprovalWait } from '../providers';
import { JobStatus, PartyState } from '../search-attributes';
import type { Definition, Fault, JobInput, JobResult, JobStatusChange, Step, StepJournalling } from '../types';
import { ApprovalWait } from './approval';
import { StepFailed, WaitFailed, refusedForApproval, toFault } from './faults';
import { JobJournal, SearchAttributes } from './journal';

export class JobRun {
  private readonly journal = new JobJournal();
  private readonly attributes = new SearchAttributes();
  private readonly approval?: ApprovalWait; // only a definition with an approval wait takes approval signals
  private readonly positions: Map<string, number>; // in the definition, rescue steps after the others
  private readonly faults: Fault[] = [];
  private opened?: string; // the approval wait whose start the last step recorded

  constructor(private readonly job: JobInput, private readonly definition: Definition) {
    if (definition.steps.some(isApprovalWait)) this.approval = new ApprovalWait(job.approvalDeadline, this.journal, this.attributes);
    const all = [...definition.steps, ...definition.rescue];
    this.positions = new Map(all.map((s, position) => [s.id, position]));
  }

  /** Runs a step's activity; a failure is the job's fault. */
  async step(step: Step): Promise<void> {
    const i = this.definition.steps.indexOf(step);
    const next = this.definition.steps[i + 1];
    const opens = next && isApprovalWait(next) ? next.id : undefined;
    try {
      await this.call(step, this.journal.forStep({ ...(opens && { opens }), ...(!next && { status: { status: 'OK' } }) }));
      this.opened = opens;
    } catch (err) {
      if (err instanceof WaitFailed) throw err; // the deadline passed while this step was refused: it never ran
      const fault = toFault(step, err);
      this.journal.failed(step.id, fault);
      throw new StepFailed(fault);
    }
  }

  /** Waits for an approval; the step after it records the wait's end, once the approval is recorded. */
  async approvalWait(step: Step): Promise<void> {
    if (this.opened !== step.id) { // no step before it recorded the wait's start
      this.journal.owe([{ step: step.id, at: 'start', status: 'RUN' }], { status: 'WAIT' });
      await this.record();
    }
    await this.approval!.begin(step);
  }

  /** The job ends OK: its last step recorded so, unless it was the approval wait. */
  async ok(): Promise<JobResult> {
    if (this.journal.owing) await this.record({ status: 'OK' });
    this.attributes.flush();
    return { status: 'OK', faults: [] };
  }

  /** Runs every rescue step after a failure (their own failures are added to the faults); the job ends ERR. */
  async rescue(err: unknown): Promise<JobResult> {
    if (!(err instanceof StepFailed)) throw err; // a bug in workflow code: the task retries once fixed
    this.faults.push(err.fault);
    setCurrentDetails(`Rescue after: ${err.fault.message}`);
    const steps = this.definition.rescue;
    for (const [i, step] of steps.entries()) {
      const last = i === steps.length - 1;
      try {
        await this.call(step, this.journal.forStep({ ...(last && { status: { status: 'ERR', faults: [...this.faults] } }) }));
      } catch (failure) {
        const fault = toFault(step, failure);
        this.faults.push(fault);
        this.journal.failed(step.id, fault);
      }
    }
    if (this.journal.owing) await this.record({ status: 'ERR', faults: [...this.faults] });
    this.attributes.flush();
    return { status: 'ERR', faults: this.faults };
  }

  private async call(step: Step, journal: StepJournalling): Promise<void> {
    const spec = PROVIDERS[step.provider];
    if (spec?.kind !== 'activity') {
      throw new StepFailed({ provider: step.provider, code: 'provider-unknown', message: `step "${step.name}" uses provider "${step.provider}", which this worker does not know` });
    }
    setCurrentDetails(`Step ${this.positions.get(step.id)! + 1}: ${step.name} (${step.provider})`);
    const run = proxyActivities({ ...spec.options, summary: step.summary ?? step.name })[step.provider]!;
    const faults = this.faults.length > 0 ? { faults: [...this.faults] } : {};
    const { jobId, workspaceId, entryId } = this.job;
    await this.untilApproved(() => run({ jobId, workspaceId, entryId, stepId: step.id, config: step.config ?? {}, ...faults, journal }));
    this.recorded(journal.status);
    if (step.provider === 'silo.state') this.attributes.set(PartyState, String(step.config?.state));
  }

  /** Records what is owed when no step carries it (a definition ending on the wait, a failed last rescue step). */
  private async record(status?: JobStatusChange): Promise<void> {
    const journal = this.journal.forOwed(status);
    const run = proxyActivities(JOURNAL_ACTIVITY.options)[JOURNAL_ACTIVITY.name]!;
    await this.untilApproved(() => run({ jobId: this.job.jobId, journal }));
    this.recorded(journal.status);
  }

  /** After the approval wait, a step refused for want of a recorded approval waits for another hint. */
  private async untilApproved(attempt: () => Promise<unknown>): Promise<void> {
    for (;;) {
      this.attributes.flush();
      try {
        return void (await attempt());
      } catch (err) {
        if (!(this.approval?.begun && refusedForApproval(err))) throw err;
        await this.approval.next();
      }
    }
  }

  private recorded(status?: JobStatusChange): void {
    this.journal.recorded();
    if (status) this.attributes.set(JobStatus, status.status);
  }
}
