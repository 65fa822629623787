// A step's activity records its journal lines (workflows/job/journal.ts) with its effect: in the very statement
// when its effect is one (journalledStatement), in the transaction of its last write, which the activity makes
// through `commit`, or right after its effect when it makes none.
import { ApplicationFailure } from '@temporalio/activity';
import type { Db, Queryable } from '../platform/store/db';
import { NoApprovalRecorded, stepLines, writeJournal } from '../platform/store/job-journal';
import { EffectRefused, type StatementEffect } from '../platform/store/statement-effect';
import {
  AWAITING_APPROVAL,
  type JournalLine,
  type StepCall,
  type StepInput,
  type StepJournalling,
} from '../contract/journal';

/**
 * Runs the step's last write in a transaction that also records its journal lines; `note.message` says on the step's
 * end event what the job should know of it (a directory line taking effect later).
 */
export type Commit = <T>(write: (q: Queryable) => Promise<T>, note?: { message: string }) => Promise<T>;

export type StepActivity<R> = (input: StepInput, commit: Commit) => Promise<R>;

/**
 * `announced`: the step's start is recorded before it runs (remote steps, which may retry for an hour: the job
 * shows which one it is in). A step that needs a recorded approval checks it before anything else.
 */
export function journalled<R>(db: Db, activity: StepActivity<R>, opts: { announced?: boolean } = {}) {
  return async (input: StepCall): Promise<R> => {
    const journal = input.journal;
    if (opts.announced || journal.requiresApproval) await announce(db, input, journal);
    // Its approval checked above, once recorded, stays: the end's lines need no check.
    const end = { lines: stepLines(input.stepId, journal), ...(journal.status && { status: journal.status }) };
    let recorded = false;
    const commit: Commit = (write, note) =>
      db.tx(async (q) => {
        const result = await write(q);
        await writeJournal(q, input.jobId, note ? noted(end, input.stepId, note.message) : end);
        recorded = true;
        return result;
      });
    const result = await activity(input, commit);
    if (!recorded) await recordJournal(db, input.jobId, end);
    return result;
  };
}

/**
 * A step whose whole effect is one statement: written with its journal lines in that very statement, under the
 * journal's approval guard, so it needs neither a transaction nor a check of its own. `done` turns the effect's
 * result into the step's.
 */
export function journalledStatement<R>(
  db: Db,
  step: (input: StepInput) => { effect: StatementEffect; done(result: unknown): R },
) {
  /** `note.message` goes on the step's end event, as with `Commit`. */
  return async (input: StepCall, note?: { message: string }): Promise<R> => {
    const { effect, done } = step(input);
    const journal = input.journal;
    const end = {
      lines: stepLines(input.stepId, journal),
      ...(journal.status && { status: journal.status }),
      requiresApproval: journal.requiresApproval,
    };
    const recorded = note ? noted(end, input.stepId, note.message) : end;
    return done(await recheckingApproval(() => recordJournal(db, input.jobId, recorded, effect)));
  };
}

/** Records the step's start with what is owed (the job's view keeps its order as the step goes on). */
async function announce(db: Db, input: StepCall, j: StepJournalling): Promise<void> {
  const lines: JournalLine[] = [...(j.owed ?? []), { step: input.stepId, at: 'start', status: 'RUN' }];
  const status = j.status?.status === 'RUN' ? j.status : undefined; // an ending status waits for the end
  await recheckingApproval(() =>
    recordJournal(db, input.jobId, { lines, ...(status && { status }), requiresApproval: j.requiresApproval }),
  );
}

/**
 * The API signals an approval just before it commits it: a refusal is checked again for a few seconds before the
 * workflow is told to wait for another hint.
 */
export async function recheckingApproval<T>(write: () => Promise<T>): Promise<T> {
  for (const pauseMs of [250, 750, 2000]) {
    try {
      return await write();
    } catch (err) {
      if (!(err instanceof ApplicationFailure && err.type === AWAITING_APPROVAL)) throw err;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
  return write();
}

/** The journal activity's work, and a step's lines written on their own. */
export async function recordJournal(
  db: Db,
  jobId: string,
  journal: Parameters<typeof writeJournal>[2],
  effect?: StatementEffect,
): Promise<unknown> {
  try {
    return await refusedAsFailure(() => writeJournal(db, jobId, journal, effect)); // one statement
  } catch (err) {
    if (err instanceof NoApprovalRecorded) throw ApplicationFailure.nonRetryable(err.message, AWAITING_APPROVAL);
    throw err;
  }
}

/** An effect whose requirement failed fails its step for good, with the effect's fault code. */
async function refusedAsFailure<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof EffectRefused) throw ApplicationFailure.nonRetryable(err.message, err.type);
    throw err;
  }
}

/** The journal with the step's own end line carrying `message`. */
function noted<E extends { lines: JournalLine[] }>(end: E, stepId: string, message: string): E {
  return {
    ...end,
    lines: end.lines.map((l) => (l.step === stepId && l.at === 'end' ? { ...l, message } : l)),
  };
}
