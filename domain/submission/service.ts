// Long file: the entry API's rules in one service; issue 42 splits it by step (mandate, identity, signature,
// decision).
// The entry API's rules (seed §4.1–4.2): mandate download, identity upload, in-app or pre-signed signature,
// confirmation, and the operator's approval decision. The waiting workflow is resumed by signals.
import { DomainError } from '../errors';
import { formerMatriculeOf } from '../party/take-over';
import { invoicingAddressesOf } from '../party/invoicing-addresses';
import crypto from 'node:crypto';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { Config } from '../../platform/config';
import type { DataBox } from '../../platform/crypto/data-box';
import type { AuditFacts } from '../mandate/audit-page';
import { buildMandatePdf } from '../mandate/pdf';
import type { Lang } from '../mandate/texts';
import type { SealKey } from '../mandate/seal';
import { auditTrail, recordAudit, type ClientInfo } from '../../platform/store/audit';
import { missingSignerFields } from '../mandate/signer';
import type { Party } from '../party';
import {
  finalizeSignedPdf,
  getAgreement,
  getSignedPdf,
  markSubmitted,
  lockAgreement,
  reopenAgreement,
  recordServedMandate,
  storeSignedPdf,
  type SignedTerms,
  supersededMandates,
  type AgreementRow,
} from '../../platform/store/agreements';
import { claimDecision, recordDecision } from '../../platform/store/approval-decisions';
import {
  getIdentityDocument,
  identityViews,
  putIdentityDocument,
  type IdentityView,
} from '../../platform/store/identity-documents';
import type { Db } from '../../platform/store/db';
import { getEntryRow } from '../../platform/store/entries';
import { putMeta } from '../../platform/store/entry-meta';
import { activeJobOf } from '../../platform/store/jobs';
import { lockJobForDecision } from '../../platform/store/job-cancellation';
import { temporalWorkflowId } from '../jobs/jobs';
import { approvalSignal } from '../../contract/signals';
import type { ApprovalSignal } from '../../contract/signals';
import {
  checkIdentityImage,
  checkSignedMandate,
  decodeBase64,
  normalisedSignature,
  sealedInPool,
  UploadError,
} from './uploads';
import { sharedInspectionPool, type InspectionPool } from '../inspection';
import type { MandateReference } from '../inspection/mandate-text';
import { newApprovalLink, revokeApprovalLink } from './approval-link';
import { recordDecided, recordSubmission, type WaitingJob } from './approval-journal';

/** Why a signing step was refused, for clients that show the reason in the signer's language (the wizard). */
export type SigningErrorCode =
  | 'not-found'
  | 'no-mandate'
  | 'signer-missing'
  | 'under-review'
  | 'not-waiting'
  | 'not-yet'
  | 'not-running'
  | 'unavailable'
  | 'incomplete'
  | 'nothing-to-decide'
  | 'decided'
  | 'details-locked'
  | 'invalid-details'
  | 'details-unconfirmed'
  | 'mandate-replaced'
  | 'mandate-changed'
  | 'mandate-voided'
  | 'job-cancelled';

export class SigningError extends DomainError<SigningErrorCode> {}

/** Why a decision cannot be taken any more: taken meanwhile, or the registration moved on (the sandbox's auto-approval then does nothing). */
const DECIDED_MEANWHILE: SigningErrorCode[] = [
  'decided',
  'job-cancelled',
  'nothing-to-decide',
  'no-mandate',
  'mandate-voided',
  'not-waiting',
  'not-yet',
  'not-running',
];

export interface SigningDeps {
  db: Db;
  temporal: Client;
  config: Config;
  log: Logger;
  /** Encrypts identity images and signed mandates at rest. */
  box: DataBox;
  /** The service's certificate, sealing confirmed mandates. */
  sealKey: SealKey;
  /** Where uploaded files are decoded and checked (domain/inspection/); a process-wide one when not given. */
  inspector?: InspectionPool;
}

const inspectorOf = (deps: SigningDeps) => deps.inspector ?? sharedInspectionPool(deps.config);

const mandateContext = (entryId: string) => `signed-mandate:${entryId}`;
const identityContext = (entryId: string, view: IdentityView) => `identity:${entryId}:${view}`;

export const DECISION_META_KEY = 'approval-decision';

async function context(deps: SigningDeps, workspaceId: string, entryId: string) {
  const entry = await getEntryRow(deps.db, workspaceId, entryId);
  if (!entry) throw new SigningError('not-found', `entry ${entryId} not found`);
  const agreement = await getAgreement(deps.db, entryId);
  if (!agreement)
    throw new SigningError(
      'no-mandate',
      'no mandate has been issued for this entry yet: start a registration job first',
    );
  if (agreement.voided_at) {
    throw new SigningError(
      'mandate-voided',
      `mandate ${agreement.mandate_number} was voided: its registration (job ${agreement.job_id}) was cancelled. Start a new registration for a new mandate`,
    );
  }
  return { entry, agreement, party: entry.data as Party };
}

function requireSigner(party: Party) {
  const missing = missingSignerFields(party);
  if (missing.length) {
    throw new SigningError(
      'signer-missing',
      `the mandate needs these signer fields, missing from the party: ${missing.join(', ')}. Add them with PATCH /silo/v1/entries/{id}, or let the signer complete them in the wizard`,
    );
  }
}

/** What the mandate says, before a language and a signature are chosen. */
async function mandateReference(
  deps: SigningDeps,
  ctx: Awaited<ReturnType<typeof context>>,
): Promise<MandateReference> {
  requireSigner(ctx.party);
  return {
    party: ctx.party,
    siren: ctx.entry.siren!,
    pa: { name: deps.config.PA_NAME, siren: deps.config.PA_SIREN, matricule: deps.config.PA_MATRICULE },
    mandateNumber: ctx.agreement.mandate_number,
    issuedOn: ctx.agreement.issued_on,
    entryId: ctx.entry.id,
    formerMatricule: await formerMatriculeOf(deps.db, ctx.entry.id),
    invoicingAddresses: await invoicingAddressesOf(deps.db, ctx.entry.id, ctx.entry.siren!),
  };
}

async function render(
  deps: SigningDeps,
  ctx: Awaited<ReturnType<typeof context>>,
  signature?: Parameters<typeof buildMandatePdf>[0]['signature'],
  lang: Lang = 'fr',
) {
  return buildMandatePdf({ ...(await mandateReference(deps, ctx)), signature, lang });
}

/** What a mandate signed as `reference` consents to, kept with the signature for the directory and Peppol steps. */
const signedTerms = (reference: MandateReference): SignedTerms => ({
  formerMatricule: reference.formerMatricule,
  invoicingAddresses: reference.invoicingAddresses,
});

/** The signed mandate once signed, otherwise the pre-filled one. */
export async function agreementPdf(deps: SigningDeps, workspaceId: string, entryId: string, lang: Lang = 'fr') {
  const ctx = await context(deps, workspaceId, entryId);
  const signed = ctx.agreement.signed ? await getSignedPdf(deps.db, entryId) : undefined;
  if (signed)
    return { pdf: deps.box.open(signed, mandateContext(entryId)), signed: true, number: ctx.agreement.mandate_number };
  const pdf = await render(deps, ctx, undefined, lang);
  // The number read: a signature naming none is held to it (signInApp).
  await recordServedMandate(deps.db, entryId, ctx.agreement.job_id, ctx.agreement.mandate_number);
  return { pdf, signed: false, number: ctx.agreement.mandate_number };
}

/** The signature of a mandate issued again meanwhile (the party changed): it must be signed as it is now. */
const mandateReplaced = (signed: Pick<AgreementRow, 'mandate_number'>) =>
  new SigningError(
    'mandate-replaced',
    `mandate ${signed.mandate_number} was replaced while it was being signed (the party's details changed): download the new mandate (GET agreement) and sign it`,
  );

function refuseIfSubmitted(agreement: { submitted_at: Date | null }) {
  if (agreement.submitted_at)
    throw new SigningError('under-review', 'the submission is under review: wait for the decision');
}

export async function uploadIdentity(
  deps: SigningDeps,
  workspaceId: string,
  entryId: string,
  view: IdentityView,
  data: string,
  client: ClientInfo = {},
) {
  const ctx = await context(deps, workspaceId, entryId);
  refuseIfSubmitted(ctx.agreement);
  const bytes = decodeBase64('data', data);
  const mime = await checkIdentityImage(inspectorOf(deps).ownedBy(workspaceId, entryId), 'data', bytes);
  const sha256 = crypto.createHash('sha256').update(bytes).digest('hex');
  return deps.db.tx(async (q) => {
    await recordAudit(q, { entryId, jobId: ctx.agreement.job_id, kind: 'identity', client, details: { view, sha256 } });
    return putIdentityDocument(q, entryId, view, {
      mime,
      sealed: deps.box.seal(bytes, identityContext(entryId, view)),
      sha256,
      size: bytes.length,
    });
  });
}

/**
 * `read`: the number of the mandate the signer read, when the client knows it (the wizard does). Without it, the
 * mandate last served unsigned (GET agreement) stands for what was read: a mandate issued again since (a party
 * change) is refused, 409 mandate-changed, rather than signed unread. The mandate current when the request arrived is
 * the one signed, or none (409 mandate-replaced: storeSignedPdf's condition).
 */
export async function signInApp(
  deps: SigningDeps,
  workspaceId: string,
  entryId: string,
  signature?: string,
  client: ClientInfo = {},
  lang: Lang = 'fr',
  read?: string,
) {
  const ctx = await context(deps, workspaceId, entryId);
  refuseIfSubmitted(ctx.agreement);
  if (read !== undefined && read !== ctx.agreement.mandate_number) {
    throw new SigningError(
      'mandate-replaced',
      `mandate ${read} was replaced by mandate ${ctx.agreement.mandate_number} when the party's details changed: read the new one, then sign it`,
    );
  }
  const served = ctx.agreement.served_number;
  if (read === undefined && served !== null && served !== ctx.agreement.mandate_number) {
    throw new SigningError(
      'mandate-changed',
      `mandate ${served}, last downloaded, was replaced by mandate ${ctx.agreement.mandate_number} when the party's details changed: download the new one (GET agreement), read it, then sign it (or name it in mandate_number)`,
    );
  }
  const terms = signedTerms(await mandateReference(deps, ctx));
  let pdf: Uint8Array;
  if (signature) {
    // Decoded and scaled down in a child process: the mandate embeds a small PNG.
    const image = await normalisedSignature(
      inspectorOf(deps).ownedBy(workspaceId, entryId),
      'signature',
      decodeBase64('signature', signature),
    );
    try {
      pdf = await render(deps, ctx, { kind: 'drawn', image, mime: 'image/png' }, lang);
    } catch (err) {
      throw new UploadError(
        'unreadable-image',
        `signature: the image cannot be decoded (${(err as Error).message.split('\n')[0]})`,
      );
    }
  } else {
    pdf = await render(deps, ctx, { kind: 'typed' }, lang);
  }
  const before = sha256Hex(await render(deps, ctx, undefined, lang));
  await deps.db.tx(async (q) => {
    await recordAudit(q, {
      entryId,
      jobId: ctx.agreement.job_id,
      kind: 'signed',
      client,
      details: { via: signature ? 'drawn' : 'typed', document_sha256: before },
    });
    const stored = await storeSignedPdf(
      q,
      entryId,
      ctx.agreement.mandate_number,
      deps.box.seal(pdf, mandateContext(entryId)),
      signature ? 'drawn' : 'typed',
      terms,
    );
    if (!stored) throw mandateReplaced(ctx.agreement);
  });
}

export async function uploadSignedAgreement(
  deps: SigningDeps,
  workspaceId: string,
  entryId: string,
  data: string,
  client: ClientInfo = {},
) {
  const ctx = await context(deps, workspaceId, entryId);
  refuseIfSubmitted(ctx.agreement);
  const bytes = decodeBase64('data', data);
  // Refused unless signed: a digital signature, a visible one added, or a scan (flagged for the operator).
  const reference = await mandateReference(deps, ctx);
  const superseded = await supersededMandates(deps.db, entryId, ctx.agreement.mandate_number);
  const evidence = await checkSignedMandate(
    inspectorOf(deps).ownedBy(workspaceId, entryId),
    'data',
    bytes,
    reference,
    superseded,
  );
  // The signer signed the mandate we served, whose text follows the take-over identifier and addresses set now.
  const terms = signedTerms(reference);
  await deps.db.tx(async (q) => {
    await recordAudit(q, {
      entryId,
      jobId: ctx.agreement.job_id,
      kind: 'signed',
      client,
      details: { via: 'upload', evidence, document_sha256: sha256Hex(bytes) },
    });
    const stored = await storeSignedPdf(
      q,
      entryId,
      ctx.agreement.mandate_number,
      deps.box.seal(bytes, mandateContext(entryId)),
      'upload',
      terms,
      evidence,
    );
    if (!stored) throw mandateReplaced(ctx.agreement);
  });
}

/** The running job whose mandate this is: a confirmation or a decision counts for that mandate only. */
async function currentJob(deps: SigningDeps, agreement: { job_id: string }, entryId: string): Promise<WaitingJob> {
  const job = await activeJobOf(deps.db, entryId);
  if (!job) throw new SigningError('not-waiting', 'no registration is waiting for this entry');
  if (job.id !== agreement.job_id)
    throw new SigningError('not-yet', 'the running registration has not issued its mandate yet: retry in a moment');
  return job;
}

/** Signals the job's workflow; the caller's transaction is rolled back when Temporal cannot take it. */
async function signal(deps: SigningDeps, jobId: string, s: ApprovalSignal) {
  try {
    await deps.temporal.withDeadline(Date.now() + 5_000, () =>
      deps.temporal.workflow.getHandle(temporalWorkflowId(jobId)).signal(approvalSignal, s),
    );
  } catch (err) {
    if (err instanceof WorkflowNotFoundError)
      throw new SigningError('not-running', 'the registration is not running any more');
    deps.log.warn({ jobId, err }, 'could not signal the registration');
    throw new SigningError('unavailable', 'the workflow engine is unavailable: nothing was changed, retry later');
  }
}

/**
 * Finalises and records the submission, then tells the waiting registration. Confirming again re-sends the signal
 * (the workflow ignores a repeat), so a lost signal is recovered by simply confirming again.
 */
export async function confirm(
  deps: SigningDeps,
  workspaceId: string,
  entryId: string,
  client: ClientInfo = {},
): Promise<{ status: 'submitted' }> {
  const ctx = await context(deps, workspaceId, entryId);
  const job = await currentJob(deps, ctx.agreement, entryId);
  // Until the registration waits (its state set to processing), a submission would be overwritten by that state.
  if (job.status !== 'WAIT')
    throw new SigningError('not-yet', 'the registration is still preparing the mandate: retry in a moment');
  if (!ctx.agreement.submitted_at) {
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
    if (!ctx.agreement.signed) missing.push('a signature (POST sign) or a pre-signed mandate (POST agreement)');
    if (missing.length) throw new SigningError('incomplete', `cannot confirm yet: missing ${missing.join('; ')}`);
  }
  const final = ctx.agreement.submitted_at ? undefined : await finalMandate(deps, ctx, client);
  await deps.db.tx(async (q) => {
    // The mandate as it is now, locked: a cancellation (which voids it) or a correction (which issues it again) that
    // committed meanwhile wins, and nothing of this submission is recorded.
    const now = await lockAgreement(q, entryId);
    if (now?.voided_at)
      throw new SigningError(
        'mandate-voided',
        `mandate ${now.mandate_number} was voided: its registration was cancelled`,
      );
    if (now?.mandate_number !== ctx.agreement.mandate_number) throw mandateReplaced(ctx.agreement);
    if (final) {
      await recordAudit(q, { entryId, jobId: job.id, kind: 'confirmed', client });
      await finalizeSignedPdf(q, entryId, deps.box.seal(final, mandateContext(entryId)));
      if (await markSubmitted(q, entryId)) await recordSubmission(q, entryId, job);
    }
    await signal(deps, job.id, { kind: 'confirmed' });
  });
  if (deps.config.AUTO_APPROVE && !ctx.agreement.decision_id) {
    await decide(deps, workspaceId, entryId, { approved: true, reason: 'auto-approved (sandbox)' }).catch((err) => {
      if (!(err instanceof SigningError && DECIDED_MEANWHILE.includes(err.code))) throw err; // decided or cancelled meanwhile
    });
  }
  deps.log.info({ entryId, jobId: job.id }, 'submission confirmed');
  return { status: 'submitted' };
}

const sha256Hex = (b: Uint8Array) => crypto.createHash('sha256').update(b).digest('hex');

/** The signed mandate with its audit page, sealed by the service: what the company and the directory rely on. */
async function finalMandate(
  deps: SigningDeps,
  ctx: Awaited<ReturnType<typeof context>>,
  client: ClientInfo,
): Promise<Buffer> {
  const entryId = ctx.entry.id;
  const trail = await auditTrail(deps.db, entryId, ctx.agreement.job_id);
  const signed = trail.filter((e) => e.kind === 'signed').at(-1);
  const person = ctx.party.people?.[0];
  const facts: AuditFacts = {
    mandateNumber: ctx.agreement.mandate_number,
    entryId,
    documentSha256: String(signed?.details.document_sha256 ?? 'inconnue'),
    signer: { name: [person?.name.given, person?.name.surname].filter(Boolean).join(' '), role: person?.role },
    signedAt: signed?.at ?? 'inconnue',
    signedVia: ctx.agreement.signed_via ?? 'upload',
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
    reason: `Mandat ${ctx.agreement.mandate_number}`,
    location: 'France',
    contact: deps.config.PA_SIREN,
  };
  const sealed = await getSignedPdf(deps.db, entryId);
  if (!sealed)
    throw new SigningError(
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

/** The operator's decision on the current submission; one decision per submission. */
export async function decide(
  deps: SigningDeps,
  workspaceId: string,
  entryId: string,
  d: { approved: boolean; reason?: string; /** the deciding API key; none for auto-approval */ decidedBy?: string },
) {
  const ctx = await context(deps, workspaceId, entryId);
  if (!ctx.agreement.submitted_at)
    throw new SigningError('nothing-to-decide', 'there is no submission to decide on: the signer has not confirmed');
  const job = await currentJob(deps, ctx.agreement, entryId);
  const decisionId = crypto.randomUUID();
  const decidedAt = new Date().toISOString();
  await deps.db.tx(async (q) => {
    // The job's row first, as a cancellation claims it (platform/store/jobs.ts claimCancellation): of the two racing,
    // the first to take it wins, and the other sees what it did.
    const { cancelReason } = await lockJobForDecision(q, job.id);
    if (cancelReason !== null)
      throw new SigningError(
        'job-cancelled',
        `job ${job.id} has been cancelled (or is being cancelled) through the API: its submission can no longer be decided`,
      );
    await recordDecision(q, {
      id: decisionId,
      entryId,
      jobId: job.id,
      approved: d.approved,
      reason: d.reason,
      decidedBy: d.decidedBy,
      decidedAt,
    });
    if (!(await claimDecision(q, entryId, job.id, decisionId)))
      throw new SigningError('decided', 'this submission has been decided already');
    await putMeta(q, entryId, DECISION_META_KEY, {
      src: 'gov-fr',
      value: {
        decision: d.approved ? 'approved' : 'rejected',
        ...(d.reason && { reason: d.reason }),
        decided_at: decidedAt,
        id: decisionId,
      },
    });
    if (!d.approved) await reopenAgreement(q, entryId);
    await recordDecided(q, entryId, job, { approved: d.approved, decisionId });
    await signal(deps, job.id, { kind: 'decided', approved: d.approved, decisionId });
  });
  deps.log.info({ entryId, jobId: job.id, decisionId, approved: d.approved }, 'approval decision');
  return {
    id: decisionId,
    decision: d.approved ? 'approved' : 'rejected',
    ...(d.reason && { reason: d.reason }),
    decided_at: decidedAt,
  };
}

/** An identity image, decrypted, for the operator reviewing the submission. */
export async function identityImage(deps: SigningDeps, workspaceId: string, entryId: string, view: IdentityView) {
  if (!(await getEntryRow(deps.db, workspaceId, entryId)))
    throw new SigningError('not-found', `entry ${entryId} not found`);
  const doc = await getIdentityDocument(deps.db, entryId, view);
  if (!doc) throw new SigningError('not-found', `no ${view} image for entry ${entryId}`);
  return { mime: doc.mime, data: deps.box.open(doc.data, identityContext(entryId, view)) };
}

/** Revokes the entry's wizard link: its ref stops working at once (the wizard shows a clear page). */
export async function revokeLink(deps: SigningDeps, workspaceId: string, entryId: string) {
  if (!(await getEntryRow(deps.db, workspaceId, entryId)))
    throw new SigningError('not-found', `entry ${entryId} not found`);
  if (!(await revokeApprovalLink(deps.db, entryId)))
    throw new SigningError('not-found', `entry ${entryId} has no approval link`);
  deps.log.info({ entryId }, 'approval link revoked');
}

/** A new wizard link for the registration waiting on this entry, replacing (and revoking) the previous one. */
export async function reissueLink(deps: SigningDeps, workspaceId: string, entryId: string) {
  const ctx = await context(deps, workspaceId, entryId);
  const job = await currentJob(deps, ctx.agreement, entryId);
  const link = await newApprovalLink(deps.db, entryId, job.id, deps.config.wizardUrl);
  deps.log.info({ entryId, jobId: job.id }, 'approval link reissued');
  return link;
}
