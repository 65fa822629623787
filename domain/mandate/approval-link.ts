// The wizard link of a registration (seed §2: the `approval-link` meta entry). Its ref is the wizard's only
// credential: 256 random bits, never in Temporal history, and one per registration job, so a link forwarded for an
// earlier registration opens nothing later. Integrators can revoke it and issue a new one.
import crypto from 'node:crypto';
import type { Queryable } from '../../platform/store/db';
import {
  deleteMeta,
  markJobMetaCancelled,
  putMeta,
  putMetaUnlessHeld,
  type MetaInput,
  type MetaView,
} from '../../platform/store/entry-meta';
import type { StatementEffect } from '../../platform/store/statement-effect';

export const APPROVAL_LINK_KEY = 'approval-link';

/** A fresh link for this job: a new ref, so whatever ref came before stops working once it is stored. */
function freshLink(jobId: string, wizardUrl: string): MetaInput {
  const ref = crypto.randomBytes(32).toString('base64url');
  return {
    src: 'gov-fr',
    ref,
    value: { job_id: jobId },
    link_url: `${wizardUrl}/reg/${ref}/start`,
    link_scope: 'public',
    indexed: true,
    shared: true,
  };
}

/**
 * This job's link as a statement's effect, created (replacing an earlier job's) unless this job's is there already
 * (links from before this rule name no job); its result says whether it is new.
 */
export const approvalLinkEffect = (entryId: string, jobId: string, wizardUrl: string): StatementEffect =>
  putMetaUnlessHeld(entryId, APPROVAL_LINK_KEY, freshLink(jobId, wizardUrl));

/** A fresh link for this job, stored at once. */
export const newApprovalLink = (q: Queryable, entryId: string, jobId: string, wizardUrl: string): Promise<MetaView> =>
  putMeta(q, entryId, APPROVAL_LINK_KEY, freshLink(jobId, wizardUrl));

export const revokeApprovalLink = (q: Queryable, entryId: string) => deleteMeta(q, entryId, APPROVAL_LINK_KEY);

/**
 * Retires the link of one job (a cancelled registration), not a later job's: it opens nothing any more, but its ref
 * still finds the entry, so the signer's page says the registration was cancelled rather than that the link is wrong.
 */
export async function retireJobApprovalLink(q: Queryable, entryId: string, jobId: string): Promise<void> {
  await markJobMetaCancelled(q, entryId, APPROVAL_LINK_KEY, jobId);
}
