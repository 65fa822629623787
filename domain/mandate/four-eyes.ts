// Four eyes: whether the decision policy (domain/review/decision-policy.ts) asks a submission for two approvals, and
// which of the two an approval is. Off under AUTO_APPROVE (decide() asks only for an operator's approval).
import { lockedFirstApproval } from '../../platform/store/approval-decisions';
import type { Queryable } from '../../platform/store/db';
import { checksOfSubmission } from '../../platform/store/submission-checks';
import { secondApprovalCase } from '../review/decision-policy';
import { MandateError, type MandateDeps } from './context';

/** The decision policy's case that asks this submission for two approvals, with the policy's version; none if one. */
export async function policyCase(deps: MandateDeps, s: { entryId: string; mandateNumber: string }) {
  const checks = await checksOfSubmission(deps.db, s);
  const name = checks && secondApprovalCase(deps.decisionPolicy, checks);
  return name ? { case: name, version: deps.decisionPolicy.version } : undefined;
}

/**
 * Which approval this is (two operators approving at once: one is first, the other then second). The first
 * approval's own operator cannot give the second.
 */
export async function approvalStage(q: Queryable, s: { entryId: string; jobId: string }, operatorId: string) {
  const first = await lockedFirstApproval(q, s);
  if (!first) return 'first-approval' as const;
  if (first.operatorId === operatorId)
    throw new MandateError(
      'same-operator',
      'you gave this submission its first approval: the second must come from another operator',
    );
  return 'final' as const;
}
