// A step's activity records its journal lines with its effect, the store deriving them from the job's definition
// (platform/store/job-journal.ts): its start before it runs, its end in the transaction of its last write, which the
// activity makes through `commit` (or right after its effect when it makes none); a step whose whole effect is one
// statement records both in that very statement (journalledStatement).
import { ApplicationFailure } from '@temporalio/activity';
import type { Db } from '../platform/store/db';
import type { Commit } from '../domain/jobs/step-commit';
import {
  NoApprovalRecorded,
  writeJournal,
  type JournalWrite,
  type StepWrite,
  type Written,
} from '../platform/store/job-journal';
import { EffectRefused, type StatementEffect } from '../platform/store/statement-effect';
import { entryFactsOf, entryFactsRead, type EntryFacts } from '../platform/store/entry-facts';
import { AWAITING_APPROVAL, type StepCall, type StepIds, type StepInput } from '../contract/journal';

/** `facts`: what the step asked to read of its entry with its start (journalled's `facts`), read there. */
export type StepActivity<R> = (input: StepInput, commit: Commit, facts?: EntryFacts) => Promise<R>;

/**
 * A step whose start is recorded before it runs (the job shows which step it is in while it retries), in the
 * statement that reads its config from the job's definition and, with `facts` (the meta keys it needs), what it
 * reads of its entry (entry-facts.ts); a step after the approval wait does nothing unless an approved decision is
 * recorded.
 */
export function journalled<R>(db: Db, activity: StepActivity<R>, o: { facts?: readonly string[] } = {}) {
  return async (call: StepCall): Promise<R> => {
    const read = o.facts && entryFactsRead(call, o.facts);
    const { config, effect } = await recheckingApproval(() =>
      recordJournal(db, call.jobId, stepWrite(call, 'start'), read),
    );
    let recorded = false;
    const commit: Commit = (effect, note) =>
      db.tx(async (q) => {
        const result = await effect(q);
        await writeJournal(q, call.jobId, stepWrite(call, 'end', note && { note: note.message }));
        recorded = true;
        return result;
      });
    const result = await activity(stepInput(call, config), commit, read && entryFactsOf(effect));
    if (!recorded) await recordJournal(db, call.jobId, stepWrite(call, 'end'));
    return result;
  };
}

/**
 * A step whose whole effect is one statement: written with its journal lines in that very statement, under the
 * journal's approval guard, so it needs neither a transaction nor a check of its own. The effect reads what it needs
 * of the step's config in the statement (statement-effect.ts stepConfig); `done` turns its result into the step's.
 */
export function journalledStatement<R>(
  db: Db,
  step: (input: Omit<StepInput, 'config'>) => { effect: StatementEffect; done(result: unknown): R },
) {
  /** `note.message` goes on the step's end event, as with `Commit`. */
  return async (call: StepCall, note?: { message: string }): Promise<R> => {
    const { effect, done } = step(stepIds(call));
    const written = await recheckingApproval(() =>
      recordJournal(db, call.jobId, stepWrite(call, 'end', note && { note: note.message }), effect),
    );
    return done(written.effect);
  };
}

/** What step `call` records at its start or end (`more`: its end's note, a wait waived): the rescue adds its own. */
export function stepWrite(
  call: StepCall,
  at: StepWrite['at'],
  more: Pick<StepWrite, 'note' | 'waive'> = {},
): JournalWrite {
  const rescue = call.rescue;
  return {
    step: { step: call.stepId, at, ...more },
    ...(rescue?.owed && { lines: rescue.owed }),
    ...(rescue && { faults: rescue.faults }),
  };
}

/** The step's ids, with the faults so far on the rescue path. */
function stepIds(call: StepCall): Omit<StepInput, 'config'> {
  const { jobId, workspaceId, entryId, stepId } = call;
  const ids: StepIds = { jobId, workspaceId, entryId, stepId };
  return call.rescue ? { ...ids, faults: call.rescue.faults } : ids;
}

const stepInput = (call: StepCall, config: Record<string, unknown>): StepInput => ({ ...stepIds(call), config });

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
  journal: JournalWrite,
  effect?: StatementEffect,
): Promise<Written> {
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
