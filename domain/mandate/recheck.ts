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
  for (const s of await unansweredChecks(deps.db, { olderThanMs: o.olderThanMs, limit: o.max })) {
    const r = await checkOnce(deps, s);
    if (r) checked++;
    if (r === 'approved') approved++;
  }
  return { checked, approved };
}

/**
 * The submission's checks made again if the register left them unanswered (an operator opening it: they see what it
 * says now); the policy applied to what they find.
 */
export async function checkAgainIfUnanswered(deps: MandateDeps, entryId: string): Promise<void> {
  const [s] = await unansweredChecks(deps.db, { olderThanMs: 0, limit: 1, entryId });
  if (s) await checkOnce(deps, s);
}

async function checkOnce(
  deps: MandateDeps,
  s: { entryId: string; workspaceId: string; jobId: string; mandateNumber: string },
): Promise<'checked' | 'approved' | undefined> {
  const ctx = await context(deps, s.workspaceId, s.entryId);
  if (ctx.mandate.mandate_number !== s.mandateNumber) return undefined; // replaced meanwhile: its own checks will come
  const checks = await checksOf(deps, ctx, s.jobId);
  if (!(await replaceChecks(deps.db, s, checks))) return undefined; // decided, reopened or replaced meanwhile
  return (await decideByPolicy(deps, s.workspaceId, s.entryId, checks)) ? 'approved' : 'checked';
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
