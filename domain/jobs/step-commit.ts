// How a step's use case makes its last write: in a transaction that also records the step's end in the job's journal
// (activities/journalled.ts builds it), so the effect and the journal never disagree.
import type { Queryable } from '../../platform/store/db';

/** `note.message` says on the step's end event what the job should know of it (a directory line taking effect later). */
export type Commit = <T>(write: (q: Queryable) => Promise<T>, note?: { message: string }) => Promise<T>;
