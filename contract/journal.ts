// What a step's activity is called with, and what the workflow tells the journal beyond what the store derives from
// the job's definition (activities/journalled.ts, workflows/job/journal.ts).
import type { Fault, JobStatus, EventStatus } from './job';

/** The ids a step's activity is called with. */
export interface StepIds {
  jobId: string;
  workspaceId: string;
  entryId: string;
  stepId: string;
}

/**
 * What the workflow sends a step's activity: ids. The store derives what the step records in the job's journal from
 * the job's definition (platform/store/job-journal.ts); only the rescue path adds what the definition cannot tell.
 */
export interface StepCall extends StepIds {
  rescue?: RescueCall;
}

/** A rescue step's call: the job's faults so far, and the lines of the steps that failed (their start and KO). */
export interface RescueCall {
  faults: Fault[];
  owed?: JournalLine[];
}

/** What a step's activity works with: its ids, its config read from the job's definition, the faults (rescue). */
export interface StepInput extends StepIds {
  config: Record<string, unknown>;
  faults?: Fault[];
}

/**
 * One event of a step's intent. A `start` event opens the intent, an `end` one (OK or KO) completes it. The step
 * is named by its id: the store reads its name, provider and position from the job's definition.
 */
export interface JournalLine {
  step: string;
  at: 'start' | 'end';
  status: EventStatus;
  code?: string;
  message?: string;
}

/** The job's status after a step, when it changes (the store ends the job on OK, ERR and CANCEL). */
export interface JobStatusChange {
  status: Exclude<JobStatus, 'QUEUED'>;
  faults?: Fault[];
  /** A WAIT for a day, not for an approval: YYYY-MM-DD. */
  until?: string;
}

/**
 * What the journal activity records when no step carries it (workflows/job/calls.ts): lines the workflow owes, the
 * job's status, and whether an approval must be recorded first (the approval wait's end is among the lines).
 */
export interface OwedJournal {
  owed?: JournalLine[];
  status?: JobStatusChange;
  requiresApproval?: boolean;
}

/** The failure type of a step refused for want of a recorded approval: the workflow waits again. */
export const AWAITING_APPROVAL = 'awaiting-approval';

/**
 * What the cancel activity records: the cancelled step's lines and the job's end, with the party's state. The reason
 * stays in the store (the API wrote it with the request): lines coded `cancelled` take it there.
 */
export interface CancelRecord {
  jobId: string;
  entryId: string;
  stepId: string;
  journal: OwedJournal;
}
