// The approval wait: the API records the signer's submission and the operator's decision, then signals. Signals
// are hints: an approval hint lets the next step run, and that step does nothing unless the store holds an
// approved decision (otherwise the wait goes on). The deadline counts from the time the wait begins.
import { condition, setCurrentDetails, setHandler } from '@temporalio/workflow';
import { durationMs } from '../duration';
import { PartyState, WaitingFor } from '../../contract/search-attributes';
import type { WaitingFor as Waiting } from '../../contract/waiting-for';
import { approvalSignal } from '../../contract/signals';
import type { Step } from '../../contract/job';
import { Cancelled, WaitFailed } from './faults';
import type { JobContext } from './context';

/** What the Temporal UI's run details say the wait is for. */
const SHOWN: Record<Exclude<Waiting, 'effective-date'>, string> = {
  signer: 'the signer to sign and submit the mandate',
  decision: "the operator's decision on the submission",
  'second-decision': "a second operator's decision (a first approval is recorded)",
  resubmission: 'a new submission (the last one was rejected)',
};

export class ApprovalWait {
  private hinted = false;
  private step?: Step;
  private deadline = 0;
  /** The party's state the last hint told of: it may arrive with the step before the wait, and must win over it. */
  private partyState?: string;

  private readonly limit: string;

  constructor(private readonly ctx: JobContext) {
    this.limit = ctx.job.approvalDeadline;
    setHandler(approvalSignal, (hint) => {
      if (hint.kind === 'decided' && hint.approved) {
        this.hinted = true;
        return;
      }
      this.waiting =
        hint.kind === 'confirmed' ? 'decision' : hint.kind === 'first-approved' ? 'second-decision' : 'resubmission';
      this.showWait();
      // Operators filter parked registrations by the party's state (submitted awaits their decision) and by what
      // the wait is for.
      this.partyState = hint.partyState ?? (hint.kind === 'decided' ? 'processing' : 'submitted');
      ctx.attributes.set(PartyState, this.partyState);
      ctx.attributes.set(WaitingFor, this.waiting);
      ctx.attributes.flush();
    });
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
    this.showWait();
    this.ctx.journal.noApprovalExpected();
    this.ctx.attributes.flush();
    const remaining = this.deadline - Date.now();
    if (!this.hinted && remaining > 0) await condition(() => this.hinted || this.ctx.cancelRequested, remaining);
    if (this.ctx.cancelRequested) throw new Cancelled(step);
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
    this.ctx.journal.approvalHinted(step.id);
  }
}
