// A campaign's dry run as a workflow: batches of rows judged by an activity, the run continued as new before its
// history grows long. Ids only: the rows are in the store.
export interface CampaignCheckInput {
  campaignId: string;
  /** Where an earlier run of the dry run stopped (continue-as-new), and how many rows it had judged. */
  afterLine?: number;
  checked?: number;
}

export interface CampaignActivities {
  /** Judges the next batch of unjudged rows after `afterLine`; `next` absent once none is left. */
  checkCampaignRows(i: { campaignId: string; afterLine: number }): Promise<{ next?: number; checked: number }>;
  /** The dry run is over: the campaign may start; its counts by verdict. */
  endCampaignCheck(i: { campaignId: string }): Promise<{ counts: Record<string, number> }>;
}

export const CAMPAIGN_CHECK_WORKFLOW_TYPE = 'checkCampaign';
export const campaignCheckWorkflowId = (campaignId: string) => `campaign-check-${campaignId}`;

/** A started campaign: its rows registered a batch at a time; where an earlier run stopped (continue-as-new). */
export interface CampaignRunInput {
  campaignId: string;
  /** The pause between two batches that keeps the launch rate (CAMPAIGN_LAUNCH_PER_S). */
  batchGapMs?: number;
  afterLine?: number;
  launched?: number;
}

export interface CampaignRunActivities {
  /**
   * Registers the next batch of rows after `afterLine`; answers the campaign's status as it found it (anything but
   * running stops the launching), and `next` while rows are left.
   */
  launchCampaignRows(i: {
    campaignId: string;
    afterLine: number;
  }): Promise<{ status: string; next?: number; launched: number; refused: number }>;
  /** Cancels the next of the campaign's running registrations after `after` (a job id); `next` while some are left. */
  cancelCampaignJobs(i: { campaignId: string; after: string }): Promise<{ cancelled: number; next?: string }>;
}

/** Rows a launching activity registers; the run spaces its batches to keep the launch rate. */
export const CAMPAIGN_LAUNCH_BATCH = 100;

export const CAMPAIGN_RUN_WORKFLOW_TYPE = 'runCampaign';
export const campaignRunWorkflowId = (campaignId: string) => `campaign-run-${campaignId}`;
/** The API changed the campaign's status (paused, resumed, cancelled): a hint, the store decides. */
export const CAMPAIGN_CHANGED_SIGNAL = 'campaignChanged';

/** Below the default (3): a single registration's tasks go first when the task queues are busy. */
export const CAMPAIGN_PRIORITY_KEY = 4;

/** A campaign row's key: its entry's and its registration's (the job sweeper knows a campaign's job by it). */
const CAMPAIGN_ROW_KEY = 'campaign:';
export const campaignRowKey = (campaignId: string, line: number) => `${CAMPAIGN_ROW_KEY}${campaignId}:${line}`;

/** The Temporal priority of a job: a campaign's yields to single registrations, sharing its level by workspace. */
export const jobPriority = (key: string | null | undefined, workspaceId: string) =>
  key?.startsWith(CAMPAIGN_ROW_KEY) ? { priorityKey: CAMPAIGN_PRIORITY_KEY, fairnessKey: workspaceId } : undefined;
