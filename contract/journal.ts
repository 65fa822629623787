// What a step's activity records in the job's journal with its effect (activities/journalled.ts), as the workflow
// tells it (workflows/job/journal.ts).
import type { Fault, JobStatus, EventStatus } from './job';

/** What every provider activity receives. */
export interface StepInput {
  jobId: string;
  workspaceId: string;
  entryId: string;
  stepId: string;
  config: Record<string, unknown>;
  /** Faults of the job so far (rescue steps). */
  faults?: Fault[];
}

/** What the workflow sends a step's activity: its input, and what it records in the job's journal with its effect. */
export interface StepCall extends StepInput {
  journal: StepJournalling;
}

/**
 * One event of a step's intent. A `start` event opens the intent, an `end` one (OK or KO) completes it. The step
 * is named by its id: the store reads its name, provider and position from the job's definition (small activity
 * inputs: each is written to the workflow's history).
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
 * What a step's activity (StepInput.stepId) records in the same transaction as its effect: its own start and end,
 * the lines the workflow owes for earlier steps (a failed step's KO, the approval wait's end), the start of the
 * approval wait it leads to, and the job's status.
 */
export interface StepJournalling {
  owed?: JournalLine[];
  /** The approval wait (its step id) that follows this step: its start is recorded with this step's end. */
  opens?: string;
  status?: JobStatusChange;
  /** Does nothing unless an approved decision is recorded for the job: the step after the approval wait. */
  requiresApproval?: boolean;
}

/** What the journal activity records when no step carries it (workflows/job/calls.ts). */
export type OwedJournal = Pick<StepJournalling, 'owed' | 'status' | 'requiresApproval'>;

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
