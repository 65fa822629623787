// The housekeeping Schedule's activity: the sweeps of domain/jobs/job-sweeper.ts over the activity's own Temporal
// client (the worker's connection), so that they run once per round in the deployment, not in every API process.
import { Context } from '@temporalio/activity';
import type { JobSweepActivities } from '../contract/job-sweep';
import { closeAbandonedJobs, showWaitingForParked } from '../domain/jobs/job-sweeper';
import type { ActivityDeps } from './deps';

export function jobSweepActivities({ db, log, config }: ActivityDeps): JobSweepActivities {
  return {
    async sweepAbandonedJobs() {
      const deps = { db, log, config, temporal: Context.current().client };
      return { closed: await closeAbandonedJobs(deps), asked: await showWaitingForParked(deps) };
    },
  };
}
