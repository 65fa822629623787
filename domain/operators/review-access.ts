// What an operator opens to decide, across every workspace: an entry is found by its id alone, and each review
// detail (the signer's identity number), identity image and signed mandate an operator sees is in the access log
// (who, what, when) before it is sent.
import type { IdentityView } from '../../platform/store/identity-documents';
import { getMandate } from '../../platform/store/mandates';
import { workspaceOfEntry } from '../../platform/store/entries';
import { recordAccess } from '../../platform/store/operator-access-log';
import type { OperatorIdentity } from '../../platform/store/operators';
import type { Queryable } from '../../platform/store/db';
import { MandateError, mandatePdfOf, type MandateDeps } from '../mandate/context';
import { identityImage } from '../mandate/signature';

/** The workspace of the entry an operator names; another workspace's entry is theirs to see too. */
export async function workspaceForOperator(db: Queryable, entryId: string): Promise<string> {
  const workspaceId = await workspaceOfEntry(db, entryId);
  if (!workspaceId) throw new MandateError('not-found', `entry ${entryId} not found`);
  return workspaceId;
}

export async function identityImageSeen(
  deps: MandateDeps,
  operator: OperatorIdentity,
  entryId: string,
  view: IdentityView,
) {
  const image = await identityImage(deps, await workspaceForOperator(deps.db, entryId), entryId, view);
  await recordAccess(deps.db, {
    operatorId: operator.operatorId,
    action: 'identity-image-viewed',
    entryId,
    detail: { view },
  });
  return image;
}

/** The review detail, which shows the signer as declared, their identity document's number with it. */
export async function submissionSeen(
  deps: MandateDeps,
  operator: OperatorIdentity,
  at: { entryId: string; jobId: string; number: string },
) {
  await recordAccess(deps.db, {
    operatorId: operator.operatorId,
    action: 'submission-viewed',
    entryId: at.entryId,
    jobId: at.jobId,
    detail: { mandate_number: at.number },
  });
}

/** The signed mandate under review: only a signed one (the pre-filled one is never shown as if it were signed). */
export async function signedMandateSeen(deps: MandateDeps, operator: OperatorIdentity, entryId: string) {
  const workspaceId = await workspaceForOperator(deps.db, entryId);
  const mandate = await getMandate(deps.db, entryId);
  if (!mandate?.signed) throw new MandateError('not-found', `a signed mandate for entry ${entryId} not found`);
  const { pdf, number } = await mandatePdfOf(deps, workspaceId, entryId);
  await recordAccess(deps.db, {
    operatorId: operator.operatorId,
    action: 'mandate-viewed',
    entryId,
    jobId: mandate.job_id,
    detail: { mandate_number: number },
  });
  return { pdf, number };
}
