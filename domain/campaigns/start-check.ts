// Starts a campaign's dry run on Temporal. Its workflow id is the campaign's, so starting it again while it runs
// is a no-op: the upload starts it, and the jobs' housekeeping starts again one that made no progress (Temporal was
// away at the upload, or the run ended early).
import { WorkflowIdConflictPolicy, type Client } from '@temporalio/client';
import type { Logger } from 'pino';
import {
  CAMPAIGN_CHECK_WORKFLOW_TYPE,
  campaignCheckWorkflowId,
  type CampaignCheckInput,
} from '../../contract/campaigns';

export async function startCampaignCheck(temporal: Client, taskQueue: string, campaignId: string): Promise<void> {
  await temporal.workflow.start(CAMPAIGN_CHECK_WORKFLOW_TYPE, {
    workflowId: campaignCheckWorkflowId(campaignId),
    taskQueue,
    args: [{ campaignId } satisfies CampaignCheckInput],
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    staticSummary: `Campaign ${campaignId}: dry run`,
  });
}

/** At the upload: a Temporal that cannot be reached leaves the start to the housekeeping. */
export async function startCampaignCheckSoon(
  deps: { temporal: Client; log: Logger; taskQueue: string },
  campaignId: string,
): Promise<void> {
  await startCampaignCheck(deps.temporal, deps.taskQueue, campaignId).catch((err: unknown) =>
    deps.log.warn({ err, campaignId }, 'campaign dry run not started: the housekeeping starts it'),
  );
}
