// The director checks the public register left unanswered (its limit of about 7 requests a second per address, or a
// fault) are made again in the background, at the same client's pace, and the decision policy applied to what they
// find: at a campaign's pace, a confirmation does not wait for its turn, and a rule vouching for it still decides.
import { runPeriodically } from '../../platform/periodic';
import { replaceChecks, unansweredChecks } from '../../platform/store/submission-checks';
import { checksOf, decideByPolicy } from './decision';
import { context, type MandateDeps } from './context';

/** Re-checks up to `max` submissions unanswered for `olderThanMs`; returns how many it checked and approved. */
export async function checkAgain(
  deps: MandateDeps,
  o: { max: number; olderThanMs: number },
): Promise<{ checked: number; approved: number }> {
  let checked = 0;
  let approved = 0;
  for (const s of await unansweredChecks(deps.db, o.olderThanMs, o.max)) {
    const ctx = await context(deps, s.workspaceId, s.entryId);
    if (ctx.mandate.mandate_number !== s.mandateNumber) continue; // replaced meanwhile: its own checks will come
    const checks = await checksOf(deps, ctx, s.jobId);
    if (!(await replaceChecks(deps.db, s, checks))) continue; // decided, reopened or replaced meanwhile
    checked++;
    if (await decideByPolicy(deps, s.workspaceId, s.entryId, checks)) approved++;
  }
  return { checked, approved };
}

/**
 * Runs checkAgain every `everyMs` (each round within the register's pace: RECHERCHE_ENTREPRISES_RATE), when the
 * policy has rules to apply: without any, an operator decides every submission and reads the register themself.
 */
export function runChecksAgain(deps: MandateDeps, everyMs = 30_000): () => void {
  if (deps.decisionPolicy.auto_approve.length === 0 || deps.config.AUTO_APPROVE) return () => undefined;
  const max = Math.max(1, Math.floor((deps.config.RECHERCHE_ENTREPRISES_RATE * everyMs) / 2_000));
  return runPeriodically(
    everyMs,
    async () => {
      const r = await checkAgain(deps, { max, olderThanMs: everyMs });
      if (r.checked) deps.log.info(r, 'director checks made again');
    },
    (err) => deps.log.warn({ err }, 'director re-check failed'),
  );
}
