// The jobs' housekeeping on a Temporal Schedule (every few minutes): jobs whose workflow an operator ended in the
// Temporal UI are closed, runs parked by a build before the WaitingFor search attribute are asked to write it,
// campaigns' dry runs and launchings that made no progress are told again, running campaigns' progress is announced
// and those whose registrations have all ended are finished.
export interface SweepOutcome {
  closed: number;
  asked: number;
  checksStarted: number;
  /** Campaigns whose run was started again, and those finished. */
  runsStarted: number;
  campaignsFinished: number;
}

export interface JobSweepActivities {
  sweepAbandonedJobs(): Promise<SweepOutcome>;
}

export const JOB_SWEEP_WORKFLOW_TYPE = 'sweepJobs';
export const JOB_SWEEP_SCHEDULE_ID = 'job-housekeeping';
