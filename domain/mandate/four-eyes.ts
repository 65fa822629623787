// Four eyes: whether the decision policy (domain/review/decision-policy.ts) asks a submission for two approvals, and
// which of the two an approval is. Off under AUTO_APPROVE (decide() asks only for an operator's approval).
import { lockedFirstApproval } from '../../platform/store/approval-decisions';
import type { Queryable } from '../../platform/store/db';
import { checksOfSubmission, fillDirectoryCheck } from '../../platform/store/submission-checks';
import type { MandateRow } from '../../platform/store/mandates';
import { secondApprovalCase } from '../review/decision-policy';
import { directoryRecord, recordMatches } from '../review/directory-record';
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

/**
 * What the review detail shows of a submission's checks: the Annuaire's record now, whether the declared name is its,
 * and the policy's case asking for two approvals while it awaits a decision. A record the submission could not get
 * (the Annuaire did not answer then) is kept with its checks: the queue's filters and the policy then see it.
 */
export async function reviewedChecks(
  deps: MandateDeps,
  s: {
    entryId: string;
    mandate: Pick<MandateRow, 'mandate_number' | 'submitted_at' | 'decision_id'>;
    siren: string | null;
    declaredName: string | null | undefined;
  },
) {
  const at = { entryId: s.entryId, mandateNumber: s.mandate.mandate_number };
  const [directory, stored] = await Promise.all([
    directoryRecord(deps.reviewAnnuaire, deps.log, s.siren, deps.config.PA_MATRICULE),
    checksOfSubmission(deps.db, at),
  ]);
  const matches = recordMatches(directory, s.declaredName);
  const fill =
    stored &&
    ['unavailable', 'unchecked'].includes((stored.directory as { outcome: string }).outcome) &&
    (directory.outcome === 'found' || directory.outcome === 'not-found');
  if (fill)
    await fillDirectoryCheck(deps.db, at, {
      directory,
      ...matches,
      takeover: directory.outcome === 'found' && directory.other_platforms.length > 0,
    });
  const checks = fill ? await checksOfSubmission(deps.db, at) : stored;
  const awaiting = s.mandate.submitted_at !== null && s.mandate.decision_id === null;
  const policyCase =
    awaiting && !deps.config.AUTO_APPROVE && checks ? secondApprovalCase(deps.decisionPolicy, checks) : undefined;
  return { directory, nameMatches: matches.nameMatches, policyCase, checks };
}
