// The housekeeping Schedule's activity: the sweeps of domain/jobs/job-sweeper.ts over the activity's own Temporal
// client (the worker's connection), so that they run once per round in the deployment, not in every API process.
import { Context } from '@temporalio/activity';
import type { JobSweepActivities } from '../contract/job-sweep';
import { closeAbandonedJobs, showWaitingForParked } from '../domain/jobs/job-sweeper';
import { startCampaignCheck } from '../domain/campaigns/start-check';
import { dropStaleUploads } from '../platform/store/campaigns';
import { stalledChecks } from '../platform/store/campaign-checks';
import { stalledRuns } from '../platform/store/campaign-launches';
import { tellRun } from '../domain/campaigns/lifecycle';
import { announceCampaigns } from '../domain/campaigns/progress';
import type { ActivityDeps } from './deps';

/** An upload unfinished this long was cut short (the API process stopped): far longer than any file takes. */
const STALE_UPLOAD_MS = 6 * 3_600_000;
/** A dry run or a launching silent this long is told again: a no-op while its workflow still runs. */
const CHECK_IDLE_MS = 10 * 60_000;

export function jobSweepActivities({ db, log, config }: ActivityDeps): JobSweepActivities {
  return {
    async sweepAbandonedJobs() {
      const deps = { db, log, config, temporal: Context.current().client };
      const stalled = await stalledChecks(db, CHECK_IDLE_MS);
      for (const id of stalled) await startCampaignCheck(deps.temporal, config.TEMPORAL_TASK_QUEUE, id);
      const runs = await stalledRuns(db, CHECK_IDLE_MS);
      const lifecycle = {
        temporal: deps.temporal,
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        launchPerS: config.CAMPAIGN_LAUNCH_PER_S,
      };
      for (const r of runs) await tellRun(lifecycle, r.workspace_id, r.id);
      const { finished } = await announceCampaigns(db);
      await dropStaleUploads(db, STALE_UPLOAD_MS);
      return {
        closed: await closeAbandonedJobs(deps),
        asked: await showWaitingForParked(deps),
        checksStarted: stalled.length,
        runsStarted: runs.length,
        campaignsFinished: finished,
      };
    },
  };
}
