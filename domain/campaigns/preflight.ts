// The dry run's engine for one company, at once: the verdict a campaign row of this SIREN would get now (a SIREN
// some open campaign holds is a duplicate, with the verdict it would get without it), with nothing claimed and
// nothing written.
import { holdingWorkspaces, runningRegistrations, sirenClaim } from '../../platform/store/campaign-checks';
import { today } from '../directory/lines';
import { lookUpAndJudge, verdictOf, type CheckContext } from './check-rows';

export async function preflight(
  ctx: CheckContext,
  workspaceId: string,
  asked: { siren: string; formerPlatform?: string },
) {
  const { siren } = asked;
  const [claim, holders, running] = await Promise.all([
    sirenClaim(ctx.db, siren),
    holdingWorkspaces(ctx.db, [siren]),
    runningRegistrations(ctx.db, workspaceId, [siren]),
  ]);
  const j = await lookUpAndJudge(
    ctx,
    { siren, ...(asked.formerPlatform && { formerPlatform: asked.formerPlatform }) },
    {
      workspaceId,
      holderWorkspace: holders.get(siren),
      runningJob: running.get(siren),
      requests: { annuaire: 0, dns: 0 },
      day: today(ctx.now?.()),
    },
  );
  const judged = verdictOf(j);
  if (!claim) return { siren, ...judged };
  // Held by an open campaign: a duplicate now, and what it would be once that campaign is finished or cancelled.
  return {
    siren,
    verdict: 'duplicate' as const,
    reasons: [
      claim.workspaceId === workspaceId
        ? `SIREN ${siren} is on line ${claim.line} of campaign ${claim.campaignId}, open`
        : `SIREN ${siren} is in another open campaign on this platform`,
    ],
    otherwise: judged,
  };
}
