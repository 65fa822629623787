// The wizard link of a registration (seed §2: the `approval-link` meta entry). Its ref is the wizard's only
// credential: 256 random bits, never in Temporal history, and one per registration job, so a link forwarded for an
// earlier registration opens nothing later. Integrators can revoke it and issue a new one.
import crypto from 'node:crypto';
import type { Queryable } from '../store/db';
import { deleteMeta, getMeta, putMeta, type MetaView } from '../store/entries';

export const APPROVAL_LINK_KEY = 'approval-link';

/** The job a link was issued for (links from before this rule carry none). */
const jobOf = (link: MetaView | undefined) => (link?.value as { job_id?: string } | undefined)?.job_id;

/** This job's link, created (replacing an earlier job's) when missing; `created` says whether it is new. */
export async function ensureApprovalLink(q: Queryable, entryId: string, jobId: string, wizardUrl: string): Promise<{ link: MetaView; created: boolean }> {
  const existing = await getMeta(q, entryId, APPROVAL_LINK_KEY);
  if (existing && jobOf(existing) === jobId) return { link: existing, created: false };
  return { link: await newApprovalLink(q, entryId, jobId, wizardUrl), created: true };
}

/** A fresh link for this job: whatever ref came before stops working at once. */
export async function newApprovalLink(q: Queryable, entryId: string, jobId: string, wizardUrl: string): Promise<MetaView> {
  const ref = crypto.randomBytes(32).toString('base64url');
  return putMeta(q, entryId, APPROVAL_LINK_KEY, {
    src: 'gov-fr', ref, value: { job_id: jobId }, link_url: `${wizardUrl}/reg/${ref}/start`, link_scope: 'public', indexed: true, shared: true,
  });
}

export const revokeApprovalLink = (q: Queryable, entryId: string) => deleteMeta(q, entryId, APPROVAL_LINK_KEY);
