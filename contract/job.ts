// The job contract's core: a definition's steps, what a job's workflow starts with and ends with, its faults and
// statuses. Plain types and constants: workflows, activities, the domain, the store and the API all import them.

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
  /**
   * Set by the API since the WaitingFor search attribute: the run writes a change of it alone. A run started before
   * writes it only with another change (its history has no write for it alone) or when asked (showWaitingForSignal).
   */
  showsWaitingFor?: true;
}

/** runDefinition's input: the definition as it was when the job started. */
export interface DefinitionJobInput extends JobInput {
  definition: Definition;
}

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

/** The code of a cancelled job's fault and of its cancelled step's end. */
export const CANCELLED = 'cancelled';
/** The message the workflow gives the end line of a step cancelled before it started (the activity words it). */
export const CANCELLED_BEFORE_START = 'before-start';

export const PARTY_STATES = [
  'processing',
  'submitted',
  'completed',
  'registered',
  'error',
  'void',
  'cancelled',
  // Set by the nightly reconciliation (domain/reconciliation/): another platform took its lines over; the company ceased.
  'moved-out',
  'ceased',
] as const;
export type PartyState = (typeof PARTY_STATES)[number];

export const isPartyState = (s: unknown): s is PartyState => (PARTY_STATES as readonly unknown[]).includes(s);
