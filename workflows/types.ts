// Past the 120 lines of workflow files: the shared plain types in one place until issue 42 gives each step its
// own.
// Types shared by workflow code, activities and the API. Plain types only: this file is bundled into workflows.

export interface Step {
  id: string;
  name: string;
  provider: string;
  summary?: string;
  config?: Record<string, unknown>;
}

export interface Definition {
  steps: Step[];
  rescue: Step[];
}

/** What a job's workflow starts with: ids, never personal data. */
export interface JobInput {
  jobId: string;
  workspaceId: string;
  entryId: string;
  /** How long the approval wait may last, e.g. "30d". */
  approvalDeadline: string;
  /** ISO time before which the job's first step does not start (leaving us on a later day); absent: at once. */
  notBefore?: string;
}

/** runDefinition's input: the definition as it was when the job started. */
export interface DefinitionJobInput extends JobInput {
  definition: Definition;
}

/** The legacy runJob's input (workflows/legacy/run-job.ts). */
export interface LegacyJobInput extends DefinitionJobInput {
  siren?: string;
  /** INTERPRETER_REVISION for runs that take the current code paths without patch markers; absent in older runs. */
  revision?: number;
}

/** Bumped when a start must tell the legacy runJob which code paths it may take without patched(). */
export const INTERPRETER_REVISION = 2;

/** How a job's workflow ends: OK, or ERR with the faults of the failed step and of any failed rescue step. */
export interface JobResult {
  status: 'OK' | 'ERR' | 'CANCEL';
  faults: Fault[];
}

export interface Fault {
  provider: string;
  code: string;
  message: string;
}

export type JobStatus = 'QUEUED' | 'RUN' | 'WAIT' | 'OK' | 'ERR' | 'CANCEL';
export type EventStatus = 'RUN' | 'WAIT' | 'OK' | 'KO';

/** What every provider activity receives. */
export interface StepInput {
  jobId: string;
  workspaceId: string;
  entryId: string;
  stepId: string;
  config: Record<string, unknown>;
  /** Faults of the job so far (rescue steps). */
  faults?: Fault[];
  /** What the activity records in the job's journal with its effect; absent in runs of the legacy runJob. */
  journal?: StepJournalling;
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

/** What the journal activity records when no step carries it (workflows/job/run.ts). */
export type OwedJournal = Pick<StepJournalling, 'owed' | 'status' | 'requiresApproval'>;

/** The failure type of a step refused for want of a recorded approval: the workflow waits again. */
export const AWAITING_APPROVAL = 'awaiting-approval';

export interface StepJournal {
  jobId: string;
  stepId: string;
  position: number;
  name: string;
  provider: string;
  event: { idx: number; status: EventStatus; code?: string; message?: string };
  completed: boolean;
}

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

/** The code of a cancelled job's fault and of its cancelled step's end. */
export const CANCELLED = 'cancelled';
/** The message the workflow gives the end line of a step cancelled before it started (the activity words it). */
export const CANCELLED_BEFORE_START = 'before-start';

export type ApprovalSignal = { kind: 'confirmed' } | { kind: 'decided'; approved: boolean; decisionId?: string };

export const PARTY_STATES = [
  'processing',
  'submitted',
  'completed',
  'registered',
  'error',
  'void',
  'cancelled',
] as const;
export type PartyState = (typeof PARTY_STATES)[number];
