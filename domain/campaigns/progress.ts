// Where a campaign stands: its rows by verdict, its registered rows by their party's state and how many of their
// registrations still run. The API answers it, the campaign's events carry it, and the housekeeping ends a campaign
// whose registrations have all ended.
import type { Queryable } from '../../platform/store/db';
import { campaignById, moveCampaign, verdictCounts, type CampaignRecord } from '../../platform/store/campaigns';
import {
  campaignsDone,
  endCancelledCampaigns,
  launchedProgress,
  runningCampaigns,
} from '../../platform/store/campaign-launches';
import { recordCampaignEvent } from '../../platform/store/events';

export interface CampaignProgress {
  counts: Record<string, number>;
  /** Rows given their entry and registration. */
  launched: number;
  /** Those rows by their party's state (draft, processing, submitted, registered, error…). */
  states: Record<string, number>;
  /** Their registrations still running. */
  running: number;
}

export async function progressOf(db: Queryable, c: CampaignRecord): Promise<CampaignProgress> {
  const [counts, launched] = await Promise.all([
    verdictCounts(db, c.id),
    c.started_at ? launchedProgress(db, c.id) : { states: {}, running: 0 },
  ]);
  return { counts, launched: c.launched_rows, states: launched.states, running: launched.running };
}

const payloadOf = (c: CampaignRecord, p: CampaignProgress) => ({ status: c.status, ...p });

/**
 * The housekeeping's round: each running campaign's progress announced, and those whose rows are all registered
 * and whose registrations have all ended finished (their SIRENs free for other campaigns); a cancelled one announced
 * `campaign.finished` (its status `cancelled`) once the registrations it could not cancel have ended.
 */
export async function announceCampaigns(db: Queryable): Promise<{ finished: number }> {
  for (const id of await runningCampaigns(db)) {
    const c = await campaignById(db, id);
    if (c) await recordCampaignEvent(db, id, 'campaign.progressed', payloadOf(c, await progressOf(db, c)));
  }
  let finished = 0;
  for (const { id, workspace_id } of await campaignsDone(db)) {
    const c = await moveCampaign(db, workspace_id, id, ['running'], 'finished');
    if (!c) continue;
    finished++;
    await announceFinished(db, c);
  }
  // Cancelled ones end when the registrations they could not cancel (past the directory step) have.
  for (const c of await endCancelledCampaigns(db)) {
    finished++;
    await announceFinished(db, c);
  }
  return { finished };
}

/** A campaign's end (finished, or cancelled with nothing left running), announced with its counts. */
export async function announceFinished(db: Queryable, c: CampaignRecord): Promise<void> {
  await recordCampaignEvent(db, c.id, 'campaign.finished', payloadOf(c, await progressOf(db, c)));
}

/** The dry run's end, announced. */
export async function announceChecked(db: Queryable, campaignId: string): Promise<void> {
  const c = await campaignById(db, campaignId);
  if (c) await recordCampaignEvent(db, campaignId, 'campaign.checked', payloadOf(c, await progressOf(db, c)));
}
