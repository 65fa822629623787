// What a job's workflow owes its journal and the Temporal UI. The workflow records nothing itself: the store derives
// each step's lines from the definition as the step's activity writes its effect; the workflow owes only what the
// definition cannot tell (a failure, a cancellation, a day or an approval waited for with no step to record it).
import type { Fault } from '../../contract/job';
import type { JobStatusChange, JournalLine, OwedJournal, RescueCall } from '../../contract/journal';

/** Of two statuses owed, the job takes the one of higher rank (the second on a tie): an ending one over all. */
const RANK: Record<JobStatusChange['status'], number> = { RUN: 0, WAIT: 1, OK: 2, ERR: 2, CANCEL: 2 };
const higher = (a?: JobStatusChange, b?: JobStatusChange) => (!a || (b && RANK[b.status] >= RANK[a.status]) ? b : a);

export class JobJournal {
  /** Lines no activity has recorded yet: a failed step's, the approval wait's. */
  private owed: JournalLine[] = [];
  private status?: JobStatusChange;
  /** The approval wait (its step id) an approval hint ended: the next write records its end, if the approval is recorded. */
  private approvedWait?: string;

  /** Owes lines (once each) and a status. */
  owe(lines: JournalLine[], status?: JobStatusChange): void {
    for (const l of lines) if (!this.owed.some((o) => o.step === l.step && o.at === l.at)) this.owed.push(l);
    this.status = higher(this.status, status);
  }

  /**
   * An approval hint ended the wait: the next write records its end, and needs the approval recorded (a step's
   * write does so as the store derives it; the journal activity's, as owed here).
   */
  approvalHinted(wait: string): void {
    this.approvedWait = wait;
  }

  /** The wait goes on, or failed: no write needs an approval. */
  noApprovalExpected(): void {
    this.approvedWait = undefined;
  }

  get owing(): boolean {
    return this.owed.length > 0 || this.status !== undefined || this.approvedWait !== undefined;
  }

  /** What is owed, with `status` if it ranks higher: for the journal activity when no step carries it. */
  forOwed(status?: JobStatusChange): OwedJournal {
    const wait = this.approvedWait;
    const next = higher(higher(this.status, wait === undefined ? undefined : { status: 'RUN' }), status);
    const owed: JournalLine[] = wait ? [...this.owed, { step: wait, at: 'end', status: 'OK' }] : [...this.owed];
    return { ...(owed.length > 0 && { owed }), ...(next && { status: next }), ...(wait && { requiresApproval: true }) };
  }

  /** What a rescue step's activity records beside its own lines: the failed steps' lines, the faults so far. */
  forRescue(faults: Fault[]): RescueCall {
    return { faults: [...faults], ...(this.owed.length > 0 && { owed: [...this.owed] }) };
  }

  /** The activity recorded what it was given. */
  recorded(): void {
    this.owed = [];
    this.status = undefined;
    this.approvedWait = undefined;
  }

  /** A step failed: its start and its KO are owed, for the next activity (the rescue) to record. */
  failed(step: string, fault: Fault): void {
    this.approvedWait = undefined; // whether the approval was recorded is unknown: the wait's end is left open
    this.owe([
      { step, at: 'start', status: 'RUN' },
      { step, at: 'end', status: 'KO', code: fault.code, message: fault.message },
    ]);
  }
}
