// The approval wait: the API records the signer's submission and the operator's decision, then signals. Signals
// are hints: an approval hint lets the next step run, and that step does nothing unless the store holds an
// approved decision (otherwise the wait goes on). The deadline counts from the time the wait begins.
import { condition, setCurrentDetails, setHandler } from '@temporalio/workflow';
import { durationMs } from '../../contract/duration';
import { JobStatus, PartyState, WaitingFor } from '../../contract/search-attributes';
import type { WaitingFor as Waiting } from '../../contract/waiting-for';
import { approvalSignal } from '../../contract/signals';
import type { Step } from '../../contract/job';
import { Cancelled, WaitFailed } from './faults';
import type { JobContext } from './context';
import { OverturnWindow } from './overturn-window';

/** What the Temporal UI's run details say the wait is for. */
const SHOWN: Record<Exclude<Waiting, 'effective-date'>, string> = {
  signer: 'the signer to sign and submit the mandate',
  decision: "the operator's decision on the submission",
  'second-decision': "a second operator's decision (a first approval is recorded)",
  resubmission: 'a new submission (the last one was rejected)',
};

export class ApprovalWait {
  private hinted = false;
  /** An approval hint ended the wait (the step after it runs; refused, the wait goes on). */
  private over = false;
  private step?: Step;
  private deadline = 0;
  /** The party's state the last hint told of: it may arrive with the step before the wait, and must win over it. */
  private partyState?: string;
  private readonly window = new OverturnWindow();

  private readonly limit: string;

  constructor(private readonly ctx: JobContext) {
    this.limit = ctx.job.approvalDeadline;
    setHandler(approvalSignal, (hint) => {
      if (hint.kind === 'decided' && hint.approved) {
        this.hinted = true;
        return this.window.approved(hint.holdUntil);
      }
      if (hint.kind === 'decided' && this.window.overturns()) this.hinted = false; // the wait goes on
      if (hint.kind === 'first-approved') return this.firstApproved(hint.partyState);
      // A confirmation sent again after a first approval (a lost signal recovered) still awaits the second.
      if (hint.kind === 'decided' || this.waiting !== 'second-decision')
        this.waiting = hint.kind === 'confirmed' ? 'decision' : 'resubmission';
      this.showWait();
      // Operators filter parked registrations by the party's state (submitted awaits their decision) and by what
      // the wait is for.
      this.partyState = hint.partyState ?? (hint.kind === 'confirmed' ? 'submitted' : 'processing');
      ctx.attributes.set(PartyState, this.partyState);
      ctx.attributes.set(WaitingFor, this.waiting);
      ctx.attributes.flush();
    });
  }

  /**
   * A first approval is recorded; a second operator's decides (four eyes). A hint only this build takes, so it is
   * written alone; ignored once the job no longer waits (a late one).
   */
  private firstApproved(partyState: string | undefined): void {
    if (this.hinted || this.over || this.ctx.attributes.current(JobStatus) !== 'WAIT') return;
    this.waiting = 'second-decision';
    this.showWait();
    if (partyState) {
      this.partyState = partyState;
      this.ctx.attributes.set(PartyState, partyState);
    }
    this.ctx.attributes.set(WaitingFor, this.waiting);
    this.ctx.attributes.flush(true);
  }

  /** What the wait is for (the store's `waiting_for` is the API's); a hint may tell it before the wait begins. */
  private waiting: Exclude<Waiting, 'effective-date'> = 'signer';

  private showWait(): void {
    if (this.step) setCurrentDetails(`${this.ctx.stepDetails(this.step)}: waiting for ${SHOWN[this.waiting]}`);
  }

  /** Whether the job has reached its approval wait. */
  get begun(): boolean {
    return this.step !== undefined;
  }

  /** Waits at `step` for an approval hint; the next write owes the wait's end and needs the approval recorded. */
  async begin(step: Step): Promise<void> {
    this.step = step;
    this.deadline = Date.now() + durationMs(this.limit);
    if (this.partyState) this.ctx.attributes.set(PartyState, this.partyState);
    this.ctx.attributes.set(WaitingFor, this.waiting);
    await this.next();
  }

  /** Waits for an approval hint (taking it: a refused step waits for another); the wait fails past the deadline. */
  async next(): Promise<void> {
    const step = this.step!;
    this.over = false;
    this.showWait();
    this.ctx.journal.noApprovalExpected();
    this.ctx.attributes.flush();
    const remaining = this.deadline - Date.now();
    if (!this.hinted && remaining > 0) await condition(() => this.hinted || this.ctx.cancelRequested, remaining);
    if (this.ctx.cancelRequested) throw new Cancelled(step);
    if (this.hinted && this.window.open) {
      await this.window.wait(this.ctx.stepDetails(step), () => this.hinted && !this.ctx.cancelRequested);
      return this.next(); // run on, overturned, or cancelled: it says which
    }
    if (!this.hinted) {
      const fault = {
        provider: step.provider,
        code: 'approval-timeout',
        message: `no approved submission within ${this.limit}`,
      };
      this.ctx.journal.owe([{ step: step.id, at: 'end', status: 'KO', code: fault.code, message: fault.message }]); // its start is recorded
      throw new WaitFailed(fault);
    }
    this.hinted = false;
    this.over = true;
    this.ctx.journal.approvalHinted(step.id);
  }
}
