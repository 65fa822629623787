// Over 300 lines for now: a submission's confirmation and its decision (an operator's, the policy's, an overturn)
// share their transaction rules; splitting the policy's path out without a cycle is the next step (issue 47's note).
// The signer confirms a submission and an operator decides on it: each recorded with its journal event in one
// transaction, then the job's workflow told by a signal (a hint: the store decides).
import crypto from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { AuditFacts } from '../mandate-document/audit-page';
import { auditTrail, recordAudit, type ClientInfo } from '../../platform/store/audit';
import {
  finalizeSignedPdf,
  getSignedPdf,
  markSubmitted,
  lockMandate,
  reopenMandate,
} from '../../platform/store/mandates';
import { decisionEffect, decisionsOf, overturnAutomatic } from '../../platform/store/approval-decisions';
import { recordChecks } from '../../platform/store/submission-checks';
import { checkSubmission, type SubmissionChecks } from '../review/submission-checks';
import { automaticApproval, type AutomaticApproval } from '../review/decision-policy';
import type { CertificateFacts } from '../review/signing-certificate';
import { approvalStage, policyCase } from './four-eyes';
import { recordAccess } from '../../platform/store/operator-access-log';
import { identityViews } from '../../platform/store/identity-documents';
import { currentState } from '../../platform/store/entry-states';
import { putMeta, putMetaWhere } from '../../platform/store/entry-meta';
import type { Queryable } from '../../platform/store/db';
import { EffectRefused, runEffect } from '../../platform/store/statement-effect';
import { activeJobOf } from '../../platform/store/jobs';
import { temporalWorkflowId } from '../jobs/jobs';
import { approvalSignal } from '../../contract/signals';
import type { ApprovalSignal } from '../../contract/signals';
import { sealedInPool } from './uploads';
import { recordDecided, recordFirstApproval, recordSubmission, waitStep, type WaitingJob } from './approval-journal';
import {
  MandateError,
  DECIDED_MEANWHILE,
  inspectorOf,
  mandateContext,
  DECISION_META_KEY,
  context,
  mandateReplaced,
  type MandateDeps,
} from './context';

/** The running job whose mandate this is: a confirmation or a decision counts for that mandate only. */
export async function currentJob(deps: MandateDeps, mandate: { job_id: string }, entryId: string): Promise<WaitingJob> {
  const job = await activeJobOf(deps.db, entryId);
  if (!job) throw new MandateError('not-waiting', 'no registration is waiting for this entry');
  if (job.id !== mandate.job_id)
    throw new MandateError('not-yet', 'the running registration has not issued its mandate yet: retry in a moment');
  return job;
}

/** Signals the job's workflow; the caller's transaction is rolled back when Temporal cannot take it. */
async function signal(deps: MandateDeps, jobId: string, s: ApprovalSignal) {
  try {
    await deps.temporal.withDeadline(Date.now() + 5_000, () =>
      deps.temporal.workflow.getHandle(temporalWorkflowId(jobId)).signal(approvalSignal, s),
    );
  } catch (err) {
    if (err instanceof WorkflowNotFoundError)
      throw new MandateError('not-running', 'the registration is not running any more');
    deps.log.warn({ jobId, err }, 'could not signal the registration');
    throw new MandateError('unavailable', 'the workflow engine is unavailable: nothing was changed, retry later');
  }
}

/**
 * Tells the registration a first approval is recorded, for the Temporal UI (WaitingFor second-decision) only: the
 * approval stands without it, so a signal that cannot be sent is logged (by signal), not refused.
 */
async function showSecondDecision(deps: MandateDeps, jobId: string, entryId: string): Promise<void> {
  const partyState = (await currentState(deps.db, entryId)) ?? undefined;
  await signal(deps, jobId, { kind: 'first-approved', ...(partyState && { partyState }) }).catch(() => undefined);
}

/**
 * Finalises and records the submission, then tells the waiting registration. Confirming again re-sends the signal
 * (the workflow ignores a repeat), so a lost signal is recovered by simply confirming again.
 */
export async function confirm(
  deps: MandateDeps,
  workspaceId: string,
  entryId: string,
  client: ClientInfo = {},
): Promise<{ status: 'submitted' }> {
  const ctx = await context(deps, workspaceId, entryId);
  const job = await currentJob(deps, ctx.mandate, entryId);
  // Until the registration waits (its state set to processing), a submission would be overwritten by that state.
  if (job.status !== 'WAIT')
    throw new MandateError('not-yet', 'the registration is still preparing the mandate: retry in a moment');
  if (!ctx.mandate.submitted_at) {
    const views = new Set((await identityViews(deps.db, entryId)).map((v) => v.view));
    const missing: string[] = [];
    if (!views.has('page') && !(views.has('front') && views.has('back'))) {
      missing.push(
        views.has('front')
          ? 'the back of the ID card'
          : views.has('back')
            ? 'the front of the ID card'
            : 'an identity document (ID card front and back, or passport page)',
      );
    }
    if (!ctx.mandate.signed) missing.push('a signature (POST sign) or a pre-signed mandate (POST agreement)');
    if (missing.length) throw new MandateError('incomplete', `cannot confirm yet: missing ${missing.join('; ')}`);
  }
  const final = ctx.mandate.submitted_at ? undefined : await finalMandate(deps, ctx, client);
  // Asked before the transaction (the Annuaire may take seconds): the checks the operators' queue shows and filters on.
  const checks = final && (await checksOf(deps, ctx, job.id));
  await deps.db.tx(async (q) => {
    // The mandate as it is now, locked: a cancellation (which voids it) or a correction (which issues it again) that
    // committed meanwhile wins, and nothing of this submission is recorded.
    const now = await lockMandate(q, entryId);
    if (now?.voided_at)
      throw new MandateError(
        'mandate-voided',
        `mandate ${now.mandate_number} was voided: its registration was cancelled`,
      );
    if (now?.mandate_number !== ctx.mandate.mandate_number) throw mandateReplaced(ctx.mandate);
    if (final) {
      await recordAudit(q, { entryId, jobId: job.id, kind: 'confirmed', client });
      await finalizeSignedPdf(q, entryId, deps.box.seal(final, mandateContext(entryId)));
      if (await markSubmitted(q, entryId)) {
        await recordSubmission(q, entryId, job);
        const at = { entryId, jobId: job.id, mandateNumber: ctx.mandate.mandate_number };
        await recordChecks(
          q,
          { ...at, waitStepId: waitStep(job)?.id, deadline: deps.config.APPROVAL_DEADLINE },
          checks!,
        );
      }
    }
    const partyState = (await currentState(q, entryId)) ?? undefined; // a confirmation sent again tells it too
    await signal(deps, job.id, { kind: 'confirmed', ...(partyState && { partyState }) });
  });
  if (!ctx.mandate.decision_id) await decideByPolicy(deps, workspaceId, entryId, checks);
  deps.log.info({ entryId, jobId: job.id }, 'submission confirmed');
  return { status: 'submitted' };
}

/**
 * The decision without a person: the sandbox (AUTO_APPROVE) approves every submission; the decision policy, one a
 * rule vouches for on its checks (the rest go to the operators). A submission decided or cancelled meanwhile is left.
 */
export async function decideByPolicy(
  deps: MandateDeps,
  workspaceId: string,
  entryId: string,
  checks: SubmissionChecks | undefined,
): Promise<boolean> {
  const automatic = !deps.config.AUTO_APPROVE && checks ? automaticApproval(deps.decisionPolicy, checks) : undefined;
  if (!deps.config.AUTO_APPROVE && !automatic) return false;
  const reason = automatic
    ? `approved automatically by rule ${automatic.rule} of the decision policy (version ${automatic.version})`
    : 'auto-approved (sandbox)';
  try {
    await decide(deps, workspaceId, entryId, { approved: true, reason, ...(automatic && { automatic }) });
    return true;
  } catch (err) {
    if (!(err instanceof MandateError && DECIDED_MEANWHILE.includes(err.code))) throw err;
    return false;
  }
}

/** The submission's checks (domain/review/submission-checks.ts), from the entry and mandate as confirmed. */
export async function checksOf(deps: MandateDeps, ctx: Awaited<ReturnType<typeof context>>, jobId: string) {
  return checkSubmission(
    { annuaire: deps.reviewAnnuaire, register: deps.publicRegister, log: deps.log, us: deps.config.PA_MATRICULE },
    {
      siren: ctx.entry.siren,
      declaredName: ctx.party.name,
      signer: ctx.party.people?.[0]?.name,
      mandate: ctx.mandate,
      certificate: await uploadCertificate(deps, ctx.entry.id, jobId),
      registered: ctx.entry.state === 'registered',
      rejections: (await decisionsOf(deps.db, ctx.entry.id, jobId)).filter((d) => d.decision === 'rejected').length,
    },
  );
}

/** The certificate of the digital signature the mandate was uploaded with, as the upload recorded it. */
async function uploadCertificate(deps: MandateDeps, entryId: string, jobId: string) {
  const signed = (await auditTrail(deps.db, entryId, jobId)).filter((e) => e.kind === 'signed').at(-1);
  return signed?.details.certificate as CertificateFacts | undefined;
}

export const sha256Hex = (b: Uint8Array) => crypto.createHash('sha256').update(b).digest('hex');

/** The signed mandate with its audit page, sealed by the service: what the company and the directory rely on. */
async function finalMandate(
  deps: MandateDeps,
  ctx: Awaited<ReturnType<typeof context>>,
  client: ClientInfo,
): Promise<Buffer> {
  const entryId = ctx.entry.id;
  const trail = await auditTrail(deps.db, entryId, ctx.mandate.job_id);
  const signed = trail.filter((e) => e.kind === 'signed').at(-1);
  const person = ctx.party.people?.[0];
  const facts: AuditFacts = {
    mandateNumber: ctx.mandate.mandate_number,
    entryId,
    documentSha256: String(signed?.details.document_sha256 ?? 'inconnue'),
    signer: { name: [person?.name.given, person?.name.surname].filter(Boolean).join(' '), role: person?.role },
    signedAt: signed?.at ?? 'inconnue',
    signedVia: ctx.mandate.signed_via ?? 'upload',
    signedFrom: { ip: signed?.ip ?? undefined, userAgent: signed?.user_agent ?? undefined },
    identity: (await identityViews(deps.db, entryId)).map((v) => ({
      view: v.view,
      sha256: v.sha256,
      at: v.created_at,
    })),
    confirmedAt: new Date().toISOString(),
    confirmedFrom: client,
  };
  const info = {
    name: deps.config.PA_NAME,
    reason: `Mandat ${ctx.mandate.mandate_number}`,
    location: 'France',
    contact: deps.config.PA_SIREN,
  };
  const sealed = await getSignedPdf(deps.db, entryId);
  if (!sealed)
    throw new MandateError(
      'incomplete',
      'cannot confirm yet: missing a signature (POST sign) or a pre-signed mandate (POST agreement)',
    );
  return sealedInPool(inspectorOf(deps).ownedBy(ctx.entry.workspace_id, entryId), {
    pdf: deps.box.open(sealed, mandateContext(entryId)),
    key: deps.sealKey,
    info,
    facts,
  });
}

/**
 * The operator's decision on the current submission; one decision per submission. An approval the decision policy
 * does not let settle it alone (four eyes, domain/review/decision-policy.ts) is a first approval: recorded, the
 * registration still waiting, until another operator approves (the decision) or either rejects. Off under
 * AUTO_APPROVE.
 */
export async function decide(
  deps: MandateDeps,
  workspaceId: string,
  entryId: string,
  d: {
    approved: boolean;
    reason?: string;
    /** the deciding operator; none for an automatic approval */
    operatorId?: string;
    /** the decision policy's rule approving it without a person */
    automatic?: AutomaticApproval;
  },
) {
  const ctx = await context(deps, workspaceId, entryId);
  if (!ctx.mandate.submitted_at)
    throw new MandateError('nothing-to-decide', 'there is no submission to decide on: the signer has not confirmed');
  const job = await currentJob(deps, ctx.mandate, entryId).catch((err: unknown) => {
    // A rejection of a submission approved since, whose registration has run on to its end.
    if (err instanceof MandateError && err.code === 'not-waiting' && !d.approved && ctx.mandate.decision_id)
      throw new MandateError(
        'decided',
        'this submission was approved and its registration has run on: unregister the party to undo it',
      );
    throw err;
  });
  const policy =
    d.approved && d.operatorId && !deps.config.AUTO_APPROVE
      ? await policyCase(deps, { entryId, mandateNumber: ctx.mandate.mandate_number })
      : undefined;
  const decisionId = crypto.randomUUID();
  const decidedAt = new Date().toISOString();
  const value = {
    decision: d.approved ? 'approved' : 'rejected',
    ...(d.reason && { reason: d.reason }),
    decided_at: decidedAt,
    id: decisionId,
  };
  // An automatic approval holds for the policy's window before the registration runs on: operators may overturn it.
  const automatic = d.automatic && {
    rule: d.automatic.rule,
    version: d.automatic.version,
    inputs: d.automatic.inputs,
    holdUntil: new Date(Date.parse(decidedAt) + d.automatic.windowMs).toISOString(),
  };
  // An operator's rejection of a submission decided already may overturn the policy's automatic approval.
  const overturning = !d.approved && d.operatorId !== undefined && ctx.mandate.decision_id !== null;
  const stage = await deps.db.tx(async (q) => {
    // A first approval held (even if the policy or the checks changed since): this approval is the second, or refused.
    const staged = d.approved && d.operatorId && (policy || ctx.mandate.first_approval_id);
    const stage = staged ? await approvalStage(q, { entryId, jobId: job.id }, d.operatorId!) : 'final';
    const record = {
      id: decisionId,
      entryId,
      jobId: job.id,
      approved: d.approved,
      ...(d.reason && { reason: d.reason }),
      ...(d.operatorId && { operatorId: d.operatorId }),
      decidedAt,
      stage,
      ...(policy && { policy }),
      ...(automatic && { automatic }),
    };
    let overturns: string | undefined;
    if (overturning) {
      overturns = await overturned(q, { ...record, operatorId: d.operatorId! });
      await putMeta(q, entryId, DECISION_META_KEY, { src: 'gov-fr', value });
    } else {
      const claimed = await runEffect(
        q,
        decisionEffect(
          record,
          {
            type: 'job-cancelled',
            message: `job ${job.id} has been cancelled (or is being cancelled) through the API: its submission can no longer be decided`,
          },
          stage === 'final'
            ? putMetaWhere(entryId, DECISION_META_KEY, { src: 'gov-fr', value }, () => 'EXISTS (SELECT 1 FROM claim)')
            : undefined,
        ),
      ).catch((err: unknown) => {
        throw err instanceof EffectRefused ? new MandateError('job-cancelled', err.message) : err;
      });
      if (!claimed) throw new MandateError('decided', 'this submission has been decided already');
    }
    // The decision audit: each operator's decision, and each the policy made without one (beside them, by rule).
    if (d.operatorId || automatic)
      await recordAccess(q, {
        operatorId: d.operatorId ?? null,
        action: 'decision',
        entryId,
        jobId: job.id,
        detail: {
          decision_id: decisionId,
          decision: value.decision,
          stage,
          ...(policy && { policy_case: policy.case, policy_version: policy.version }),
          ...(automatic && {
            policy_rule: automatic.rule,
            policy_version: automatic.version,
            overturnable_until: automatic.holdUntil,
          }),
          ...(overturns && { overturns }),
          ...(d.reason && { reason: d.reason }),
        },
      });
    if (stage === 'first-approval') {
      await recordFirstApproval(q, job, decisionId);
      return stage; // the registration waits on, for a second operator's decision
    }
    if (!d.approved) await reopenMandate(q, entryId);
    const partyState = await recordDecided(q, entryId, job, { approved: d.approved, decisionId });
    await signal(deps, job.id, {
      kind: 'decided',
      approved: d.approved,
      decisionId,
      ...(automatic && { holdUntil: automatic.holdUntil }),
      ...(partyState && { partyState }),
    });
    return stage;
  });
  if (stage === 'first-approval') await showSecondDecision(deps, job.id, entryId);
  deps.log.info({ entryId, jobId: job.id, decisionId, approved: d.approved, stage }, 'approval decision');
  return {
    id: decisionId,
    decision: d.approved ? ('approved' as const) : ('rejected' as const),
    ...(d.reason && { reason: d.reason }),
    decided_at: decidedAt,
    ...(stage === 'first-approval' && { awaiting: 'second-approval' as const }),
    ...(policy && { policy_case: policy.case }),
    ...(overturning && { overturns: 'automatic-approval' as const }),
  };
}

/** Overturns the submission's automatic approval (platform/store/approval-decisions.ts), or says why it cannot. */
async function overturned(
  q: Queryable,
  r: { id: string; entryId: string; jobId: string; operatorId: string; reason?: string; decidedAt: string },
): Promise<string> {
  const o = await overturnAutomatic(q, r);
  if (!o) throw new MandateError('decided', 'this submission has been decided already');
  if ('closed' in o)
    throw new MandateError(
      'decided',
      `this submission was approved automatically at ${o.closed.decidedAt}, and its window to overturn it closed at ${o.closed.until}: the registration runs on (unregister the party to undo it)`,
    );
  return o.overturned;
}
