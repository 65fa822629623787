// The signer's link, revoked or issued anew by the integrator (the job goes on waiting; a new link replaces the
// old one).
import { getEntryRow } from '../../platform/store/entries';
import { newApprovalLink, revokeApprovalLink } from './approval-link';
import { currentJob } from './decision';
import { MandateError, context, type MandateDeps } from './context';

/** Revokes the entry's wizard link: its ref stops working at once (the wizard shows a clear page). */
export async function revokeLink(deps: MandateDeps, workspaceId: string, entryId: string) {
  if (!(await getEntryRow(deps.db, workspaceId, entryId)))
    throw new MandateError('not-found', `entry ${entryId} not found`);
  if (!(await revokeApprovalLink(deps.db, entryId)))
    throw new MandateError('not-found', `entry ${entryId} has no approval link`);
  deps.log.info({ entryId }, 'approval link revoked');
}

/** A new wizard link for the registration waiting on this entry, replacing (and revoking) the previous one. */
export async function reissueLink(deps: MandateDeps, workspaceId: string, entryId: string) {
  const ctx = await context(deps, workspaceId, entryId);
  const job = await currentJob(deps, ctx.mandate, entryId);
  const link = await newApprovalLink(deps.db, entryId, job.id, deps.config.wizardUrl);
  deps.log.info({ entryId, jobId: job.id }, 'approval link reissued');
  return link;
}
