// The jobs' housekeeping on a Temporal Schedule (every few minutes): jobs whose workflow an operator ended in the
// Temporal UI are closed, and runs parked by a build before the WaitingFor search attribute are asked to write it.
export interface JobSweepActivities {
  sweepAbandonedJobs(): Promise<{ closed: number; asked: number }>;
}

export const JOB_SWEEP_WORKFLOW_TYPE = 'sweepJobs';
export const JOB_SWEEP_SCHEDULE_ID = 'job-housekeeping';
