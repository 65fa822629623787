// The activities a job's workflow calls, typed: the workflows proxy them (proxyActivities<JobActivities>) and the
// worker's implementation satisfies the same type (activities/index.ts).
import type { ActivityOptions } from '@temporalio/common';
import type { PartyState } from './job';
import type { CancelRecord, OwedJournal, StepCall } from './journal';
import { DIRECTORY_COVER, HEARTBEAT_TIMEOUT, type ActivityProviderId } from './providers';

/** What a step tells the workflow, and all it tells it (activities/index.ts keeps the rest out of the history). */
export interface StepResult {
  /** The party's state the step recorded: the workflow shows it in the Temporal UI (PartyState). */
  partyState?: PartyState;
  /** false: the approval wait after this step is not needed, and the step recorded it so. */
  approvalNeeded?: boolean;
  /** ISO time: the next step starts no earlier (directory lines from a later day). */
  nextStepNotBefore?: string;
}

export type StepActivity = (call: StepCall) => Promise<StepResult>;

/** The ids a job's own activities (not its steps') take. */
export type JobIds = Pick<StepCall, 'jobId' | 'workspaceId' | 'entryId'>;

export type JobActivities = Record<ActivityProviderId, StepActivity> & {
  /** Records a job's journal lines when no step's activity carries them (workflows/job): until the store answers. */
  'job.journal'(input: { jobId: string; journal: OwedJournal }): Promise<void>;
  /** Records a job's cancellation (the mandate voided, the wizard link revoked, the job ended); the party's state. */
  'job.cancel'(record: CancelRecord): Promise<PartyState>;
  /**
   * After a directory step failed, gives the SIREN's days left without a line back to the fictive platform (a
   * handover cut short: the 9998 line ended, ours never created).
   */
  [DIRECTORY_COVER](job: JobIds): Promise<{ restored: number }>;
};

const journalOptions: ActivityOptions = {
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute' },
};

/** How the workflow runs the job's own activities. */
export const JOB_ACTIVITY_OPTIONS = {
  'job.journal': journalOptions,
  'job.cancel': journalOptions,
  // It retries for a day: the directory may be down.
  [DIRECTORY_COVER]: {
    startToCloseTimeout: '2 minutes',
    heartbeatTimeout: HEARTBEAT_TIMEOUT,
    scheduleToCloseTimeout: '1 day',
    retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '10 minutes' },
  },
} satisfies Record<Exclude<keyof JobActivities, ActivityProviderId>, ActivityOptions>;
