// A step's activity records its journal lines (workflows/job/journal.ts) with its effect: in the transaction of
// its last write, which the activity makes through `commit`, or right after its effect when it makes none.
import { ApplicationFailure } from '@temporalio/activity';
import type { Db, Queryable } from '../store/db';
import { NoApprovalRecorded, writeJournal } from '../store/job-journal';
import { AWAITING_APPROVAL, type StepInput, type StepJournalling } from '../workflows/types';

/** Runs the step's last write in a transaction that also records its journal lines. */
export type Commit = <T>(write: (q: Queryable) => Promise<T>) => Promise<T>;

export type StepActivity<R> = (input: StepInput, commit: Commit) => Promise<R>;

/**
 * `announced`: the step's start is recorded before it runs (remote steps, which may retry for an hour: the job
 * shows which one it is in). A step that needs a recorded approval checks it before anything else.
 */
export function journalled<R>(db: Db, activity: StepActivity<R>, opts: { announced?: boolean } = {}) {
  return async (input: StepInput): Promise<R> => {
    const journal = input.journal;
    if (!journal) return activity(input, (write) => db.tx(write)); // the legacy runJob journals by itself
    if (opts.announced || journal.requiresApproval) {
      await recordJournal(db, input.jobId, { lines: [{ step: journal.step, at: 'start', status: 'RUN' }], requiresApproval: journal.requiresApproval });
    }
    const lines = { ...journal, requiresApproval: false }; // checked above: an approval, once recorded, stays
    let recorded = false;
    const commit: Commit = (write) =>
      db.tx(async (q) => {
        const result = await write(q);
        await writeJournal(q, input.jobId, lines);
        recorded = true;
        return result;
      });
    const result = await activity(input, commit);
    if (!recorded) await recordJournal(db, input.jobId, lines);
    return result;
  };
}

/** The journal activity's work, and a step's lines written on their own. */
export async function recordJournal(db: Db, jobId: string, journal: Omit<StepJournalling, 'step'>): Promise<void> {
  try {
    await (journal.status ? db.tx((q) => writeJournal(q, jobId, journal)) : writeJournal(db, jobId, journal));
  } catch (err) {
    if (err instanceof NoApprovalRecorded) throw ApplicationFailure.nonRetryable(err.message, AWAITING_APPROVAL);
    throw err;
  }
}
