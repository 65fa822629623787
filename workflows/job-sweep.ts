// The jobs' housekeeping, started by its Schedule: one activity (visibility queries and signals through the
// activity's client); the Schedule skips a round while the last one is still going.
import { proxyActivities, setWorkflowOptions } from '@temporalio/workflow';
import type { JobSweepActivities, SweepOutcome } from '../contract/job-sweep';

const { sweepAbandonedJobs } = proxyActivities<JobSweepActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5s', maximumAttempts: 3 },
});

export async function sweepJobs(): Promise<SweepOutcome> {
  return sweepAbandonedJobs();
}

setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, sweepJobs);
