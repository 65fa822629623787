// A campaign's dry run, as a story: judge its rows a batch at a time, then say it is ready. Each batch is an activity
// that paces its own requests; the run continues as new every few hundred batches so that a file of 500,000 rows
// keeps a short history. The Temporal UI shows how far it is.
import {
  continueAsNew,
  proxyActivities,
  setCurrentDetails,
  setWorkflowOptions,
  workflowInfo,
} from '@temporalio/workflow';
import { HEARTBEAT_TIMEOUT } from '../contract/providers';
import type { CampaignActivities, CampaignCheckInput } from '../contract/campaigns';

const { checkCampaignRows, endCampaignCheck } = proxyActivities<CampaignActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: HEARTBEAT_TIMEOUT, // a worker that dies mid-batch is noticed within seconds
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

/** Batches a run judges before it continues as new: 4 events each, far below Temporal's history limits. */
const BATCHES_PER_RUN = 200;

export async function checkCampaign(input: CampaignCheckInput): Promise<Record<string, number>> {
  const { campaignId } = input;
  let after = input.afterLine ?? 0;
  let checked = input.checked ?? 0;
  for (let batch = 1; ; batch++) {
    setCurrentDetails(`Dry run: ${checked} rows judged`);
    const r = await checkCampaignRows({ campaignId, afterLine: after });
    if (r.next === undefined) break;
    after = r.next;
    checked += r.checked;
    if (batch >= BATCHES_PER_RUN || workflowInfo().continueAsNewSuggested)
      await continueAsNew<typeof checkCampaign>({ campaignId, afterLine: after, checked });
  }
  const { counts } = await endCampaignCheck({ campaignId });
  setCurrentDetails(
    `Dry run done: ${Object.entries(counts)
      .map(([v, n]) => `${n} ${v}`)
      .join(', ')}`,
  );
  return counts;
}

setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, checkCampaign);
