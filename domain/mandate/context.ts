// The mandate's use cases (seed §4.1–4.2), what they share: the context of an entry's mandate (its party, the
// mandate, its job), the refusals, and the mandate to download. The signer's documents and signature are in
// signature.ts, the confirmation and the operator's decision in decision.ts, the signer's link in signer-link.ts.
import type { Certificate } from 'pkijs';
import type { DirectorLookup } from '../review/director-check';
import { mandateFacts } from '../party/mandate-facts';
import { DomainError } from '../errors';
import { formerMatriculeOf } from '../party/take-over';
import { invoicingAddressesOf } from '../party/invoicing-addresses';
import { type Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { Config } from '../../platform/config';
import type { DataBox } from '../../platform/crypto/data-box';
import { buildMandatePdf } from '../mandate-document/pdf';
import type { Lang } from '../mandate-document/texts';
import type { SealKey } from '../mandate-document/seal';
import { missingSignerFields } from '../mandate-document/signer';
import type { Party } from '../party';
import {
  getMandate,
  getSignedPdf,
  recordServedMandate,
  type SignedTerms,
  type MandateRow,
} from '../../platform/store/mandates';
import { type IdentityView } from '../../platform/store/identity-documents';
import type { Db } from '../../platform/store/db';
import { getEntryRow } from '../../platform/store/entries';
import { sharedInspectionPool, type InspectionPool } from '../inspection';
import type { CompanyLookup } from '../review/directory-record';
import type { DecisionPolicy } from '../review/decision-policy';
import type { MandateReference } from '../inspection/mandate-text';

/** Why a step of the mandate's life was refused, for clients that show the reason in the signer's language (the wizard). */
export type MandateErrorCode =
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
  | 'same-operator'
  | 'details-locked'
  | 'invalid-details'
  | 'details-unconfirmed'
  | 'mandate-replaced'
  | 'mandate-changed'
  | 'mandate-voided'
  | 'job-cancelled';

export class MandateError extends DomainError<MandateErrorCode> {}

/** Why a decision cannot be taken any more: taken meanwhile, or the registration moved on (the sandbox's auto-approval then does nothing). */
export const DECIDED_MEANWHILE: MandateErrorCode[] = [
  'decided',
  'job-cancelled',
  'nothing-to-decide',
  'no-mandate',
  'mandate-voided',
  'not-waiting',
  'not-yet',
  'not-running',
];

export interface MandateDeps {
  db: Db;
  temporal: Client;
  config: Config;
  log: Logger;
  /** Encrypts identity images and signed mandates at rest. */
  box: DataBox;
  /** The service's certificate, sealing confirmed mandates. */
  sealKey: SealKey;
  /** The Annuaire as the operators' checks ask it, answering within seconds (domain/review/directory-record.ts). */
  reviewAnnuaire: CompanyLookup;
  /** The public register of companies' directors, for the submission checks (domain/review/director-check.ts). */
  publicRegister: DirectorLookup;
  /** The CAs whose certificates the platform believes (SIGNATURE_TRUST_ANCHORS_FILE; none by default). */
  trustAnchors: Certificate[];
  /** Which approvals need a second operator's (domain/review/decision-policy.ts). */
  decisionPolicy: DecisionPolicy;
  /** Where uploaded files are decoded and checked (domain/inspection/); a process-wide one when not given. */
  inspector?: InspectionPool;
}

export const inspectorOf = (deps: MandateDeps) => deps.inspector ?? sharedInspectionPool(deps.config);

export const mandateContext = (entryId: string) => `signed-mandate:${entryId}`;

export const identityContext = (entryId: string, view: IdentityView) => `identity:${entryId}:${view}`;

export const DECISION_META_KEY = 'approval-decision';

export async function context(deps: MandateDeps, workspaceId: string, entryId: string) {
  const entry = await getEntryRow(deps.db, workspaceId, entryId);
  if (!entry) throw new MandateError('not-found', `entry ${entryId} not found`);
  const mandate = await getMandate(deps.db, entryId);
  if (!mandate)
    throw new MandateError(
      'no-mandate',
      'no mandate has been issued for this entry yet: start a registration job first',
    );
  if (mandate.voided_at) {
    throw new MandateError(
      'mandate-voided',
      `mandate ${mandate.mandate_number} was voided: its registration (job ${mandate.job_id}) was cancelled. Start a new registration for a new mandate`,
    );
  }
  return { entry, mandate, party: entry.data as Party };
}

function requireSigner(party: Party) {
  const missing = missingSignerFields(party);
  if (missing.length) {
    throw new MandateError(
      'signer-missing',
      `the mandate needs these signer fields, missing from the party: ${missing.join(', ')}. The signer completes them in the wizard's first step (the integrator can add them to the entry with PATCH /silo/v1/entries/{id})`,
    );
  }
}

/** What the mandate says, before a language and a signature are chosen. */
export async function mandateReference(
  deps: MandateDeps,
  ctx: Awaited<ReturnType<typeof context>>,
): Promise<MandateReference> {
  requireSigner(ctx.party);
  return {
    party: ctx.party,
    siren: ctx.entry.siren!,
    pa: { name: deps.config.PA_NAME, siren: deps.config.PA_SIREN, matricule: deps.config.PA_MATRICULE },
    mandateNumber: ctx.mandate.mandate_number,
    issuedOn: ctx.mandate.issued_on,
    entryId: ctx.entry.id,
    formerMatricule: await formerMatriculeOf(deps.db, ctx.entry.id),
    invoicingAddresses: await invoicingAddressesOf(deps.db, ctx.entry.id, ctx.entry.siren!),
  };
}

export async function render(
  deps: MandateDeps,
  ctx: Awaited<ReturnType<typeof context>>,
  signature?: Parameters<typeof buildMandatePdf>[0]['signature'],
  lang: Lang = 'fr',
) {
  return buildMandatePdf({ ...(await mandateReference(deps, ctx)), signature, lang });
}

/** What a mandate signed as `reference` consents to, kept with the signature for the directory and Peppol steps. */
export const signedTerms = (reference: MandateReference): SignedTerms => ({
  formerMatricule: reference.formerMatricule,
  invoicingAddresses: reference.invoicingAddresses,
  facts: mandateFacts(reference.party),
});

/** The signed mandate once signed, otherwise the pre-filled one. */
export async function mandatePdfOf(deps: MandateDeps, workspaceId: string, entryId: string, lang: Lang = 'fr') {
  const ctx = await context(deps, workspaceId, entryId);
  const signed = ctx.mandate.signed ? await getSignedPdf(deps.db, entryId) : undefined;
  if (signed)
    return { pdf: deps.box.open(signed, mandateContext(entryId)), signed: true, number: ctx.mandate.mandate_number };
  const pdf = await render(deps, ctx, undefined, lang);
  // The number read: a signature naming none is held to it (signInApp).
  await recordServedMandate(deps.db, entryId, ctx.mandate.job_id, ctx.mandate.mandate_number);
  return { pdf, signed: false, number: ctx.mandate.mandate_number };
}

/** The signature of a mandate issued again meanwhile (the party changed): it must be signed as it is now. */
export const mandateReplaced = (signed: Pick<MandateRow, 'mandate_number'>) =>
  new MandateError(
    'mandate-replaced',
    `mandate ${signed.mandate_number} was replaced while it was being signed (the party's details changed): download the new mandate (GET agreement) and sign it`,
  );

export function refuseIfSubmitted(mandate: { submitted_at: Date | null }) {
  if (mandate.submitted_at)
    throw new MandateError('under-review', 'the submission is under review: wait for the decision');
}
