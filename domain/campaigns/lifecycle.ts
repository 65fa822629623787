// Starting, pausing, resuming and cancelling a campaign: the status is written in the store, then the campaign's
// run is told (signal-with-start: the run is started if it is not running, so a cancellation after every row was
// registered still cancels what may be). The run reads the status from the store at each batch.
import { WorkflowIdConflictPolicy, type Client } from '@temporalio/client';
import type { Logger } from 'pino';
import {
  CAMPAIGN_CHANGED_SIGNAL,
  CAMPAIGN_PRIORITY_KEY,
  CAMPAIGN_LAUNCH_BATCH,
  CAMPAIGN_RUN_WORKFLOW_TYPE,
  campaignRunWorkflowId,
  type CampaignRunInput,
} from '../../contract/campaigns';
import { getCampaign, moveCampaign, type CampaignRecord, type CampaignStatus } from '../../platform/store/campaigns';
import type { Db } from '../../platform/store/db';
import { formBundles } from '../../platform/store/campaign-bundles';
import { announceFinished } from './progress';
import { DomainError } from '../errors';

export interface LifecycleDeps {
  db: Db;
  temporal: Client;
  log: Logger;
  taskQueue: string;
  /** Rows registered a second, at most (CAMPAIGN_LAUNCH_PER_S). */
  launchPerS: number;
}

export type CampaignAction = 'start' | 'pause' | 'resume' | 'cancel';

const MOVES: Record<CampaignAction, { from: CampaignStatus[]; to: CampaignStatus }> = {
  start: { from: ['checked'], to: 'running' },
  pause: { from: ['running'], to: 'paused' },
  resume: { from: ['paused'], to: 'running' },
  cancel: { from: ['checking', 'checked', 'running', 'paused'], to: 'cancelled' },
};

export async function changeCampaign(
  deps: LifecycleDeps,
  workspaceId: string,
  id: string,
  action: CampaignAction,
): Promise<CampaignRecord> {
  const move = MOVES[action];
  const moved = await deps.db.tx(async (q) => {
    const m = await moveCampaign(q, workspaceId, id, move.from, move.to);
    // Started: the rows naming the same signer become bundles, signed in one session (links.csv gives their link).
    if (m && action === 'start') await formBundles(q, id);
    // Cancelled before it started: it has ended, nothing of it running (a started one ends with its registrations).
    if (m && action === 'cancel' && !m.started_at) await announceFinished(q, m);
    return m;
  });
  if (!moved) {
    const now = await getCampaign(deps.db, workspaceId, id);
    if (!now) throw new DomainError('not-found', `no campaign ${id}`);
    if (now.status === move.to) return now; // asked twice: as it is
    throw new DomainError(
      'campaign-status',
      `campaign ${id} is ${now.status}: it can ${action} only when ${move.from.join(' or ')}${statusHint(action, now.status)}`,
    );
  }
  // A campaign cancelled before it started has no registration to cancel.
  if (action === 'cancel' && !moved.started_at) return moved;
  await tellRun(deps, workspaceId, id).catch((err: unknown) =>
    // The status is written: the housekeeping tells the run (a running campaign without its run is started again).
    deps.log.warn({ err, campaignId: id, action }, 'campaign run not told: the housekeeping will'),
  );
  return moved;
}

/** What to do instead, where the status says it. */
function statusHint(action: CampaignAction, status: CampaignStatus): string {
  if (status === 'checking') return ' (its dry run is still judging rows)';
  if (action === 'start' && status === 'paused') return ' (a paused campaign goes on with POST …/resume)';
  return '';
}

/** Signals the campaign's run that its status changed, starting it if it is not running. */
export async function tellRun(deps: Omit<LifecycleDeps, 'db' | 'log'>, workspaceId: string, id: string) {
  const input: CampaignRunInput = {
    campaignId: id,
    batchGapMs: Math.round((CAMPAIGN_LAUNCH_BATCH / deps.launchPerS) * 1000),
  };
  await deps.temporal.workflow.signalWithStart(CAMPAIGN_RUN_WORKFLOW_TYPE, {
    workflowId: campaignRunWorkflowId(id),
    taskQueue: deps.taskQueue,
    args: [input],
    signal: CAMPAIGN_CHANGED_SIGNAL,
    signalArgs: [],
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    priority: { priorityKey: CAMPAIGN_PRIORITY_KEY, fairnessKey: workspaceId },
    staticSummary: `Campaign ${id}`,
  });
}
