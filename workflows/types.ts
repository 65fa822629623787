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

/** The workflow input: ids and the definition snapshot, never personal data. */
export interface JobInput {
  jobId: string;
  workspaceId: string;
  entryId: string;
  siren?: string;
  definition: Definition;
  /** How long the approval wait may last, e.g. "30d". */
  approvalDeadline: string;
  /**
   * INTERPRETER_REVISION for runs started since the start sets JobStatus RUN (transform/jobs.ts). Such a run takes
   * the current code paths without patch markers. Absent in older runs: they replay as they were recorded.
   */
  revision?: number;
}

/** Bumped when a start must tell the workflow which code paths it may take without patched(). */
export const INTERPRETER_REVISION = 2;

export interface Fault {
  provider: string;
  code: string;
  message: string;
}

export type JobStatus = 'QUEUED' | 'RUN' | 'WAIT' | 'OK' | 'ERR';
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
}

export interface StepJournal {
  jobId: string;
  stepId: string;
  position: number;
  name: string;
  provider: string;
  event: { idx: number; status: EventStatus; code?: string; message?: string };
  completed: boolean;
}

export type ApprovalSignal = { kind: 'confirmed' } | { kind: 'decided'; approved: boolean; decisionId?: string };

export const PARTY_STATES = ['processing', 'submitted', 'completed', 'registered', 'error', 'void'] as const;
export type PartyState = (typeof PARTY_STATES)[number];
