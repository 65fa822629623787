// A started campaign, as a story: register its rows a batch at a time, at the campaign's launch rate, while it runs;
// wait while it is paused; on a cancellation, cancel what may still be cancelled. The campaign's status is in the
// store (the API writes it, then signals: a hint); each batch reads it. The run continues as new every few hundred
// batches, so that 500,000 rows keep a short history; the housekeeping says it is finished once its registrations end.
import {
  condition,
  continueAsNew,
  defineSignal,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  setWorkflowOptions,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import { HEARTBEAT_TIMEOUT } from '../contract/providers';
import { CAMPAIGN_CHANGED_SIGNAL, type CampaignRunActivities, type CampaignRunInput } from '../contract/campaigns';

const { launchCampaignRows, cancelCampaignJobs } = proxyActivities<CampaignRunActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: HEARTBEAT_TIMEOUT, // a worker that dies mid-batch is noticed within seconds
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

const BATCHES_PER_RUN = 200;

export const campaignChanged = defineSignal(CAMPAIGN_CHANGED_SIGNAL);

export async function runCampaign(input: CampaignRunInput): Promise<string> {
  const { campaignId } = input;
  let changed = false;
  setHandler(campaignChanged, () => void (changed = true));
  let after = input.afterLine ?? 0;
  let launched = input.launched ?? 0;
  for (let batch = 1; ; batch++) {
    setCurrentDetails(`Campaign: ${launched} rows registered so far`);
    changed = false;
    const batchStart = Date.now(); // workflow time: the same on replay
    const r = await launchCampaignRows({ campaignId, afterLine: after });
    if (r.status === 'paused') {
      setCurrentDetails(`Campaign paused: ${launched} rows registered so far`);
      await condition(() => changed);
      continue;
    }
    if (r.status === 'cancelled') {
      setCurrentDetails('Campaign cancelled: cancelling its registrations that have not reached the directory');
      let cancelled = 0;
      for (let next: string | undefined = ''; next !== undefined;) {
        const c: { cancelled: number; next?: string } = await cancelCampaignJobs({ campaignId, after: next });
        cancelled += c.cancelled;
        next = c.next;
      }
      setCurrentDetails(`Campaign cancelled: ${cancelled} registrations cancelled`);
      return 'cancelled';
    }
    if (r.status !== 'running') return r.status;
    launched += r.launched;
    if (r.next === undefined) break;
    after = r.next;
    // The gap is from batch to batch, the batch's own time included (a timer always, so that replays match).
    if (input.batchGapMs) await sleep(Math.max(1, input.batchGapMs - (Date.now() - batchStart)));
    if (batch >= BATCHES_PER_RUN || workflowInfo().continueAsNewSuggested)
      await continueAsNew<typeof runCampaign>({ ...input, afterLine: after, launched });
  }
  setCurrentDetails(`Campaign: all ${launched} rows registered; their registrations go on`);
  return 'launched';
}

setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, runCampaign);
