// A campaign's dry-run activities: domain/campaigns/ over the clients the worker built once. The Annuaire and the
// SML's DNS are asked at the campaign rates (CAMPAIGN_*_RPS) within this worker; a throttled request waits its
// Retry-After and is tried again rather than failing the batch.
import { Context } from '@temporalio/activity';
import { CAMPAIGN_LAUNCH_BATCH, type CampaignActivities, type CampaignRunActivities } from '../contract/campaigns';
import type { Clients } from '../integrations/clients';
import { campaignLookups } from '../integrations/campaign-lookups';
import { checkCampaignRows, type CheckContext } from '../domain/campaigns/check-rows';
import { launchCampaignRows } from '../domain/campaigns/launch-rows';
import { cancelCampaignJobs } from '../domain/campaigns/cancel-jobs';
import { announceChecked } from '../domain/campaigns/progress';
import { verdictCounts } from '../platform/store/campaigns';
import { endCheck } from '../platform/store/campaign-checks';
import type { ActivityDeps } from './deps';
import { withTemporalFailures } from './remote-failure';
import { withHeartbeat } from './heartbeat';
import { pacer } from './pacing';

/** Rows an activity judges: half a minute at the default rate, a few seconds at a high one. */
const ROWS_PER_ACTIVITY = 500;

export function campaignActivities(deps: ActivityDeps, clients: Clients): CampaignActivities & CampaignRunActivities {
  const { config, db, log } = deps;
  const annuaire = pacer(1000 / config.CAMPAIGN_ANNUAIRE_RPS);
  const dns = pacer(1000 / config.CAMPAIGN_DNS_RPS);
  const ctx: CheckContext = {
    db,
    us: config.PA_MATRICULE,
    ourSmpUrl: config.smpPublicUrl,
    // Enough requests in flight to keep both paces busy while answers take a few tens of milliseconds.
    concurrency: Math.max(8, Math.ceil((config.CAMPAIGN_ANNUAIRE_RPS + config.CAMPAIGN_DNS_RPS) / 10)),
    ports: campaignLookups(clients, { annuaire, dns }),
  };
  return {
    checkCampaignRows: withHeartbeat(({ campaignId, afterLine }) =>
      withTemporalFailures(() => checkCampaignRows(ctx, campaignId, afterLine, ROWS_PER_ACTIVITY)),
    ),
    // Jobs are started through the activity's own client (the worker's connection), as the API starts them.
    launchCampaignRows: withHeartbeat(({ campaignId, afterLine }) =>
      withTemporalFailures(() =>
        launchCampaignRows(
          { db, log, config, temporal: Context.current().client, us: config.PA_MATRICULE },
          campaignId,
          afterLine,
          CAMPAIGN_LAUNCH_BATCH,
        ),
      ),
    ),
    cancelCampaignJobs: withHeartbeat(({ campaignId, after }) =>
      withTemporalFailures(() =>
        cancelCampaignJobs({ db, log, config, temporal: Context.current().client }, campaignId, after),
      ),
    ),
    endCampaignCheck: ({ campaignId }) =>
      withTemporalFailures(async () => {
        // Announced once, with the change it reports.
        await db.tx(async (q) => {
          if (await endCheck(q, campaignId)) await announceChecked(q, campaignId);
        });
        const counts = await verdictCounts(db, campaignId);
        log.info({ campaignId, counts }, 'campaign dry run done');
        return { counts };
      }),
  };
}
