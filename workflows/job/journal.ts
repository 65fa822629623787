// What a job's workflow owes its journal and the Temporal UI. The workflow records nothing itself: each step's
// activity writes the lines owed so far with its own effect, and search attributes are upserted in batches.
import { upsertSearchAttributes } from '@temporalio/workflow';
import { JobStatus, PartyState } from '../search-attributes';
import type { Fault, JobStatusChange, JournalLine, StepJournalling, StepRef } from '../types';

/** The later status wins; an ending one (OK, ERR) over all. */
const RANK: Record<JobStatusChange['status'], number> = { RUN: 0, WAIT: 1, OK: 2, ERR: 2 };
const later = (a?: JobStatusChange, b?: JobStatusChange) => (!a || (b && RANK[b.status] >= RANK[a.status]) ? b : a);

export class JobJournal {
  /** Lines no activity has recorded yet: a failed step's, the approval wait's. */
  private owed: JournalLine[] = [];
  private status?: JobStatusChange;
  /** The approval wait an approval hint ended: the next write records its end, if the approval is recorded. */
  private approvedWait?: StepRef;

  /** Owes lines (once each) and a status. */
  owe(lines: JournalLine[], status?: JobStatusChange): void {
    for (const l of lines) if (!this.owed.some((o) => o.step.id === l.step.id && o.at === l.at)) this.owed.push(l);
    this.status = later(this.status, status);
  }

  /** An approval hint ended the wait, or (undefined) the wait failed: no approval is needed any more. */
  approvalHinted(wait: StepRef | undefined): void {
    this.approvedWait = wait;
  }

  get owing(): boolean {
    return this.owed.length > 0 || this.status !== undefined || this.approvedWait !== undefined;
  }

  /** What is owed, with `status` if it comes later: for the journal activity when no step carries it. */
  forOwed(status?: JobStatusChange): Omit<StepJournalling, 'step'> {
    const wait = this.approvedWait;
    const next = later(later(this.status, wait && { status: 'RUN' }), status);
    const lines: JournalLine[] = wait ? [...this.owed, { step: wait, at: 'end', status: 'OK' }] : [...this.owed];
    return { lines, ...(next && { status: next }), ...(wait && { requiresApproval: true }) };
  }

  /** What a step's activity records: everything owed, its own start and end, and where the job goes (`then`). */
  forStep(step: StepRef, then: { status?: JobStatusChange; opens?: StepRef } = {}): StepJournalling {
    const owed = this.forOwed(then.opens ? { status: 'WAIT' } : then.status);
    const opens: JournalLine[] = then.opens ? [{ step: then.opens, at: 'start', status: 'RUN' }] : [];
    return { step, ...owed, lines: [...owed.lines, { step, at: 'start', status: 'RUN' }, { step, at: 'end', status: 'OK' }, ...opens] };
  }

  /** The activity recorded what it was given. */
  recorded(): void {
    this.owed = [];
    this.status = undefined;
    this.approvedWait = undefined;
  }

  /** A step failed: its start and its KO are owed, for the next activity (the rescue) to record. */
  failed(step: StepRef, fault: Fault): void {
    this.owe([{ step, at: 'start', status: 'RUN' }, { step, at: 'end', status: 'KO', code: fault.code, message: fault.message }]);
  }
}

type Key = typeof JobStatus | typeof PartyState;

/**
 * The job's search attributes, upserted together before the workflow next yields (an activity, a wait, the end):
 * one visibility write for each change an operator filters on. A value already there is not written again.
 */
export class SearchAttributes {
  private readonly shown = new Map<Key, string>([[JobStatus, 'RUN']]); // the start set JobStatus RUN
  private readonly pending = new Map<Key, string>();

  set(key: Key, value: string): void {
    if (this.shown.get(key) === value) this.pending.delete(key);
    else this.pending.set(key, value);
  }

  flush(): void {
    if (this.pending.size === 0) return;
    upsertSearchAttributes([...this.pending].map(([key, value]) => ({ key, value })));
    for (const [key, value] of this.pending) this.shown.set(key, value);
    this.pending.clear();
  }
}
