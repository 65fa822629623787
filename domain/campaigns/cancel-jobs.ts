// A cancelled campaign's registrations: each cancelled as the integrator would cancel it (domain/jobs/cancel-job.ts),
// which its workflow accepts until the directory step or the operator's approval; those past it go on.
import { campaignById } from '../../platform/store/campaigns';
import { runningCampaignJobs } from '../../platform/store/campaign-launches';
import { DomainError } from '../errors';
import { cancelJob } from '../jobs/cancel-job';
import type { JobServiceDeps } from '../jobs/jobs';

const PER_CALL = 50;

export async function cancelCampaignJobs(
  deps: JobServiceDeps,
  campaignId: string,
  after: string,
): Promise<{ cancelled: number; next?: string }> {
  const campaign = await campaignById(deps.db, campaignId);
  if (!campaign) return { cancelled: 0 };
  const jobs = await runningCampaignJobs(deps.db, campaignId, after, PER_CALL);
  let cancelled = 0;
  for (const jobId of jobs) {
    try {
      await cancelJob(deps, campaign.workspace_id, jobId, 'the campaign was cancelled');
      cancelled++;
    } catch (err) {
      // Its workflow not reached (Temporal, or no worker polling: a stop under way): the activity fails, to be tried
      // again from this job, rather than the job left running. Otherwise not cancellable any more, or ended: it goes on.
      if (!(err instanceof DomainError) || err.code === 'temporal-unavailable') throw err;
    }
  }
  return { cancelled, ...(jobs.length === PER_CALL && { next: jobs.at(-1)! }) };
}
