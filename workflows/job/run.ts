// Past the 120 lines of workflow files: issue 42 splits the interpreter by concern (cancellation, start days,
// renewal).
// Running a job's steps: each step is one activity, which records its journal lines with its effect; a failure
// becomes the job's fault and the rescue steps run, each attempted, before the job ends ERR. A cancellation (the
// cancel update) is taken between steps or during the approval wait, until a step acting outside has started.
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  sleep,
} from '@temporalio/workflow';
import {
  CANCEL_ACTIVITY,
  DIRECTORY_COVER_ACTIVITY,
  JOURNAL_ACTIVITY,
  PROVIDERS,
  isApprovalWait,
} from '../../contract/providers';
import { JobStatus, PartyState } from '../../contract/search-attributes';
import { CANCEL_REFUSED, cancelUpdate } from '../../contract/signals';
import {
  CANCELLED,
  CANCELLED_BEFORE_START,
  type Definition,
  type Fault,
  type JobInput,
  type JobResult,
  type Step,
} from '../../contract/job';
import { type JobStatusChange, type StepJournalling } from '../../contract/journal';
import { ApprovalWait } from './approval';
import { Cancelled, StepFailed, WaitFailed, refusedForApproval, toFault } from './faults';
import { JobJournal, SearchAttributes } from './journal';

export class JobRun {
  private readonly journal = new JobJournal();
  private readonly attributes = new SearchAttributes();
  private readonly approval?: ApprovalWait; // only a definition with an approval wait takes approval signals
  private readonly positions: Map<string, number>; // in the definition, rescue steps after the others
  private readonly faults: Fault[] = [];
  private opened?: string; // the approval wait whose start the last step recorded
  private waived?: string; // the approval wait the last step recorded as not needed
  private cancelRequested = false;
  private outside = false; // a step acting outside the store has started: the job can no longer be cancelled
  private ending = false; // rescuing, cancelling or ending: no cancellation taken from then on
  private ended = false; // its end recorded

  constructor(
    private readonly job: JobInput,
    private readonly definition: Definition,
  ) {
    if (definition.steps.some(isApprovalWait)) {
      this.approval = new ApprovalWait(
        job.approvalDeadline,
        this.journal,
        this.attributes,
        () => this.cancelRequested,
        (s) => this.stepDetails(s),
      );
    }
    const all = [...definition.steps, ...definition.rescue];
    this.positions = new Map(all.map((s, position) => [s.id, position]));
    setHandler(
      cancelUpdate,
      async () => {
        this.cancelRequested = true;
        await condition(() => this.ended); // the caller reads the job's status from the store then
      },
      { validator: () => this.refuseCancel() },
    );
  }

  private refuseCancel(): void {
    if (this.ending)
      throw ApplicationFailure.create({
        type: CANCEL_REFUSED.ended,
        message: 'the job has ended or is being rescued',
        nonRetryable: true,
      });
    if (this.outside)
      throw ApplicationFailure.create({
        type: CANCEL_REFUSED.outside,
        message: 'a step acting outside the store has started',
        nonRetryable: true,
      });
  }

  /** Runs a step's activity; a failure is the job's fault. */
  async step(step: Step): Promise<void> {
    const i = this.definition.steps.indexOf(step);
    if (i === 0) await this.startDay(step);
    if (this.cancelRequested) throw new Cancelled(step);
    const next = this.definition.steps[i + 1];
    const opens = next && isApprovalWait(next) ? next.id : undefined;
    let result: unknown;
    try {
      result = await this.call(
        step,
        this.journal.forStep({ ...(opens && { opens }), ...(!next && { status: { status: 'OK' } }) }),
      );
      this.opened = opens;
      // The step found no approval needed (an address update within the signed mandate) and recorded the wait so.
      if (opens && (result as { approvalNeeded?: unknown } | undefined)?.approvalNeeded === false) {
        this.opened = undefined;
        this.waived = opens;
      }
    } catch (err) {
      if (err instanceof WaitFailed) throw err; // the deadline passed while this step was refused: it never ran
      const fault = toFault(step, err);
      this.journal.failed(step.id, fault);
      throw new StepFailed(fault);
    }
    if (next) await this.notBefore(step, result);
  }

  /** A job asked to start later (a company leaving us on a day) waits for it, cancellable, nothing done meanwhile. */
  private async startDay(step: Step): Promise<void> {
    const at = this.job.notBefore;
    const ms = at ? Date.parse(at) - Date.now() : 0;
    if (!(ms > 0)) return;
    const day = at!.slice(0, 10);
    await this.waitsForDay(day);
    setCurrentDetails(`Waiting until ${day} to start: ${this.stepDetails(step)} runs then`);
    await Promise.race([sleep(ms, { summary: `starts on ${day}` }), condition(() => this.cancelRequested)]);
    if (!this.cancelRequested) this.journal.owe([], { status: 'RUN' });
  }

  /** The job shows it waits for `day` (WAIT, waiting_for effective-date), until the next step records it RUN again. */
  private async waitsForDay(day: string): Promise<void> {
    await this.record({ status: 'WAIT', until: day });
    this.attributes.flush(); // operators find it by JobStatus while it waits
  }

  /**
   * A step whose effect starts later (directory lines from a future day) says when: the next step (Peppol
   * publication) waits for it on a durable timer, shown in the Temporal UI.
   */
  private async notBefore(step: Step, result: unknown): Promise<void> {
    const at = (result as { nextStepNotBefore?: unknown } | undefined)?.nextStepNotBefore;
    if (typeof at !== 'string') return;
    const ms = Date.parse(at) - Date.now();
    if (!(ms > 0)) return;
    const day = at.slice(0, 10);
    await this.waitsForDay(day);
    setCurrentDetails(`${this.stepDetails(step)} done: it takes effect on ${day}; the next step waits until then`);
    await sleep(ms, { summary: `takes effect on ${day}` });
    this.journal.owe([], { status: 'RUN' });
  }

  /** Waits for an approval; the step after it records the wait's end, once the approval is recorded. */
  async approvalWait(step: Step): Promise<void> {
    if (this.cancelRequested) throw new Cancelled(step);
    if (this.waived === step.id) return;
    if (this.opened !== step.id) {
      // no step before it recorded the wait's start
      this.journal.owe([{ step: step.id, at: 'start', status: 'RUN' }], { status: 'WAIT' });
      await this.record();
    }
    await this.approval!.begin(step);
  }

  /** The job ends OK: its last step recorded so, unless it was the approval wait. */
  async ok(): Promise<JobResult> {
    this.ending = true;
    if (this.journal.owing) await this.record({ status: 'OK' });
    this.attributes.flush();
    await this.end(`Ended OK: all ${this.definition.steps.length} steps done`);
    return { status: 'OK', faults: [] };
  }

  /**
   * Runs every rescue step after a failure (their own failures are added to the faults); the job ends ERR. A
   * cancellation ends it CANCEL instead, without the rescue.
   */
  async rescue(err: unknown): Promise<JobResult> {
    if (err instanceof Cancelled) return this.cancelled(err.step);
    if (!(err instanceof StepFailed)) throw err; // a bug in workflow code: the task retries once fixed
    this.ending = true;
    this.faults.push(err.fault);
    setCurrentDetails(`Rescue after: ${err.fault.message}`);
    if (err.fault.provider.startsWith('gov-fr.directory.')) await this.coverDirectory();
    const steps = this.definition.rescue;
    for (const [i, step] of steps.entries()) {
      const last = i === steps.length - 1;
      try {
        await this.call(
          step,
          this.journal.forStep({ ...(last && { status: { status: 'ERR', faults: [...this.faults] } }) }),
        );
      } catch (failure) {
        const fault = toFault(step, failure);
        this.faults.push(fault);
        this.journal.failed(step.id, fault);
      }
    }
    if (this.journal.owing) await this.record({ status: 'ERR', faults: [...this.faults] });
    this.attributes.flush();
    await this.end(`Ended ERR: ${this.faults[0]!.provider} failed (${this.faults[0]!.code}); the rescue ran`);
    return { status: 'ERR', faults: this.faults };
  }

  /** No SIREN left without a directory line by the failed directory step; a failure to see to it is one more fault. */
  private async coverDirectory(): Promise<void> {
    const { name, options } = DIRECTORY_COVER_ACTIVITY;
    const { jobId, workspaceId, entryId } = this.job;
    try {
      await proxyActivities(options)[name]!({ jobId, workspaceId, entryId });
    } catch (failure) {
      this.faults.push(toFault({ id: 'directory-cover', name: 'directory cover', provider: name }, failure));
    }
  }

  /** The job cancelled at `step` (which did not run, or was the approval wait): one activity records it all. */
  private async cancelled(step: Step): Promise<JobResult> {
    this.ending = true;
    const fault: Fault = { provider: 'transform', code: CANCELLED, message: 'cancelled through the API' }; // the reason is in the store
    // The wait ends cancelled; a step that had not started shows it never ran (no start line).
    const waited = isApprovalWait(step);
    this.journal.owe(
      [
        {
          step: step.id,
          at: 'end',
          status: 'KO',
          code: CANCELLED,
          ...(!waited && { message: CANCELLED_BEFORE_START }),
        },
      ],
      { status: 'CANCEL', faults: [fault] },
    );
    const journal = this.journal.forOwed();
    const { jobId, entryId } = this.job;
    const state = await proxyActivities(CANCEL_ACTIVITY.options)[CANCEL_ACTIVITY.name]!({
      jobId,
      entryId,
      stepId: step.id,
      journal,
    });
    this.recorded(journal.status);
    this.attributes.set(PartyState, String(state)); // the party's state the activity recorded
    this.attributes.flush();
    await this.end(
      `Cancelled through the API at step ${this.positions.get(step.id)! + 1} of ${this.definition.steps.length}: ${step.name}`,
    );
    return { status: 'CANCEL', faults: [fault] };
  }

  /** The step as the Temporal UI shows the run's progress: which of the definition's steps, what it does. */
  private stepDetails(step: Step): string {
    return `Step ${this.positions.get(step.id)! + 1} of ${this.definition.steps.length}: ${step.name} (${step.provider})`;
  }

  /** The job's end is recorded: a cancel update taken meanwhile answers before the run closes. */
  private async end(details?: string): Promise<void> {
    if (details) setCurrentDetails(details); // nothing of a step stays shown once the run has ended
    this.ended = true;
    await condition(allHandlersFinished);
  }

  private async call(step: Step, journal: StepJournalling): Promise<unknown> {
    const spec = PROVIDERS[step.provider];
    if (spec?.kind !== 'activity') {
      throw new StepFailed({
        provider: step.provider,
        code: 'provider-unknown',
        message: `step "${step.name}" uses provider "${step.provider}", which this worker does not know`,
      });
    }
    if (spec.outside) this.outside = true;
    setCurrentDetails(this.stepDetails(step));
    const run = proxyActivities({ ...spec.options, summary: step.summary ?? step.name })[step.provider]!;
    const faults = this.faults.length > 0 ? { faults: [...this.faults] } : {};
    const { jobId, workspaceId, entryId } = this.job;
    const result = await this.untilApproved(() =>
      run({ jobId, workspaceId, entryId, stepId: step.id, config: step.config ?? {}, ...faults, journal }),
    );
    this.recorded(journal.status);
    if (step.provider === 'silo.state') this.attributes.set(PartyState, String(step.config?.state));
    return result;
  }

  /** Records what is owed when no step carries it (a definition ending on the wait, a failed last rescue step). */
  private async record(status?: JobStatusChange): Promise<void> {
    const journal = this.journal.forOwed(status);
    const run = proxyActivities(JOURNAL_ACTIVITY.options)[JOURNAL_ACTIVITY.name]!;
    await this.untilApproved(() => run({ jobId: this.job.jobId, journal }));
    this.recorded(journal.status);
  }

  /** After the approval wait, a step refused for want of a recorded approval waits for another hint. */
  private async untilApproved(attempt: () => Promise<unknown>): Promise<unknown> {
    for (;;) {
      this.attributes.flush();
      try {
        return await attempt();
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
