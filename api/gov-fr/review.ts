// apps/gov-fr/v1/review: what the platform's operators (role `decide`; no API key) read to decide on a submission,
// across every workspace: the party and signer as the entry has them, which identity images there are, the signed
// mandate, and the PPF Annuaire's own record for the SIREN beside the declared company.
import { z } from 'zod';
import type { Party } from '../../domain/party';
import type { MandateDeps } from '../../domain/mandate/context';
import { signedMandateSeen, submissionSeen, workspaceForOperator } from '../../domain/operators/review-access';
import { getMandate } from '../../platform/store/mandates';
import { decisionsOf } from '../../platform/store/approval-decisions';
import { identityViews } from '../../platform/store/identity-documents';
import { renewalOf } from '../../domain/party/renewal';
import { getEntryRow } from '../../platform/store/entries';
import { bundleOfEntry } from '../../platform/store/campaign-bundles';
import { reviewedChecks } from '../../domain/mandate/four-eyes';
import { checkAgainIfUnanswered } from '../../domain/mandate/recheck';
import { pendingByWorkspace, reviewQueue } from '../../platform/store/review-queue';
import { queueQuery } from './review-queue-query';
import { notFound } from '../../web/http/problem';
import { route } from '../../web/http/route';
import { pdf } from '../../web/signer/routes';
import * as GovFr from '../../web/signer/schemas';
import { operator } from '../auth';

const reviewEntryParam = z.object({ silo_entry_id: z.uuid({ error: 'must be a UUID' }) });

/** A review page waits this long at most for the Annuaire: past it, the page says the directory is unavailable. */
export const REVIEW_DIRECTORY_TIMEOUT_MS = 5_000;

/** The VAT id as written on invoices (FR27552032534): GOBL keeps the country apart, and a code may already carry it. */
const vatId = (t: { country?: string; code?: string } | undefined): string | null =>
  !t?.code
    ? null
    : t.country && !t.code.toUpperCase().startsWith(t.country.toUpperCase())
      ? `${t.country}${t.code}`
      : t.code;

// Personal data: no-store and nosniff come with every response (api/security-headers.ts).
export const reviewRoutes = [
  route({
    method: 'get',
    path: '/apps/gov-fr/v1/review/submissions',
    operationId: 'listSubmissions',
    summary: 'Submissions awaiting a decision (operator)',
    description:
      "The operators' queue: the submissions awaiting a decision in every workspace, with the checks recorded when each was made. Filter by workspace, kind, evidence, age, the Annuaire's name and state, whether the signer is a director; search by SIREN or name; oldest first or the nearest deadline first. `total` counts what the filter matches; `next_cursor` gives the next page, in the same order.",
    operator: 'decide',
    query: queueQuery,
    responses: { 200: GovFr.submissions },
    handle: async ({ query: q }, { db }: MandateDeps) => {
      const filter = {
        workspaceId: q.workspace_id,
        kind: q.kind,
        evidence: q.evidence,
        submittedBefore: q.submitted_before,
        nameMismatch: q.name_mismatch,
        notActive: q.not_active,
        firstApproved: q.first_approved,
        signerCheck: q.signer_check,
        automatic: q.automatic,
        q: q.q,
      };
      const [page, workspaces] = await Promise.all([
        reviewQueue(db, filter, { order: q.order, limit: q.limit, cursor: q.cursor }),
        pendingByWorkspace(db),
      ]);
      return { ...page, workspaces };
    },
  }),
  route({
    method: 'get',
    path: '/apps/gov-fr/v1/review/submissions/:silo_entry_id',
    operationId: 'getSubmission',
    summary: 'A submission as the operator reviews it: party, signer, identity images, Annuaire record (operator)',
    description:
      "What the operator decides on: the party, the signer, the identity images, the mandate, the company's lines in the PPF Annuaire.",
    operator: 'decide',
    params: reviewEntryParam,
    responses: { 200: GovFr.reviewSubmission },
    handle: async ({ params: { silo_entry_id: entryId }, res }, deps: MandateDeps) => {
      const entry = await getEntryRow(deps.db, await workspaceForOperator(deps.db, entryId), entryId);
      if (!entry) throw notFound(`entry ${entryId}`);
      await checkAgainIfUnanswered(deps, entryId); // the register did not answer then: the operator sees it now
      const mandate = await getMandate(deps.db, entryId);
      if (!mandate) throw notFound(`a mandate for entry ${entryId} (no registration has issued one yet)`);
      const party = entry.data as Party;
      const person = party.people?.[0];
      const address = party.addresses?.[0];
      const [views, decisions, { directory, nameMatches, policyCase, checks }, replaces, bundle] = await Promise.all([
        identityViews(deps.db, entryId),
        decisionsOf(deps.db, entryId, mandate.job_id, { deciders: true }),
        reviewedChecks(deps, { entryId, mandate, siren: entry.siren, declaredName: party.name }),
        renewalOf(deps.db, entry, mandate.mandate_number),
        bundleOfEntry(deps.db, entryId),
      ]);
      // It shows the signer's identity number: each view is in the access log, as the images' are.
      await submissionSeen(deps, operator(res), { entryId, jobId: mandate.job_id, number: mandate.mandate_number });
      const awaiting = mandate.submitted_at !== null && mandate.decision_id === null;
      const firstApproval = decisions.find((x) => x.stage === 'first-approval' && x.id === mandate.first_approval_id);
      return {
        entry_id: entryId,
        job_id: mandate.job_id,
        mandate_number: mandate.mandate_number,
        submitted_at: mandate.submitted_at?.toISOString() ?? null,
        signed_via: mandate.signed_via,
        mandate_signed: mandate.signed,
        // Submitted and not decided yet: a rejection reopens the mandate, an approval closes it.
        awaiting_decision: awaiting,
        four_eyes:
          policyCase || firstApproval
            ? { policy_case: policyCase || firstApproval!.policy_case || '', first_approval: firstApproval ?? null }
            : null,
        name_matches: nameMatches,
        // Recorded with the submission: the signer among the directors, and the signature's evidence in detail.
        signer_check: checks?.signer ?? null,
        signature: checks?.signature ?? null,
        party: {
          name: party.name ?? null,
          siren: entry.siren,
          vat: vatId(party.tax_id),
          address: address
            ? [address.num, address.street, address.street_extra, address.code, address.locality]
                .filter(Boolean)
                .join(' ') || null
            : null,
        },
        // The number declared, for the operator to compare with the document's image (the mandate no longer prints it).
        signer: {
          given: person?.name.given ?? null,
          surname: person?.name.surname ?? null,
          role: person?.role ?? null,
          id_number: person?.identities?.[0]?.code ?? null,
        },
        // uploaded_at: the last upload of that view; one older than a rejection was not replaced since.
        identity: views.map((v) => ({ view: v.view, mime: v.mime, size: v.size, uploaded_at: v.created_at })),
        // The last decision on this registration (an earlier registration's does not count; a first approval is none).
        decision: decisions.find((x) => x.stage === 'final') ?? null,
        // Every decision on this registration, newest first: a new submission after a rejection shows what was rejected and why.
        decisions,
        directory,
        ...(replaces && { replaces }),
        bundle: bundle
          ? {
              ...bundle,
              companies: bundle.companies.map((c) => ({ ...c, submitted_at: c.submitted_at?.toISOString() ?? null })),
            }
          : null,
      };
    },
  }),
  route({
    method: 'get',
    path: '/apps/gov-fr/v1/review/submissions/:silo_entry_id/mandate',
    operationId: 'getSubmittedMandate',
    summary: 'The signed mandate under review (operator)',
    description: 'The signed mandate under review, as a PDF; each view is in the access log.',
    operator: 'decide',
    params: reviewEntryParam,
    responses: { 200: pdf },
    errors: ['mandate-voided'],
    handle: async ({ params: { silo_entry_id: entryId }, res }, deps: MandateDeps) => {
      const { pdf: bytes, number } = await signedMandateSeen(deps, operator(res), entryId);
      // For a script (the page renders it with pdf.js); opened directly, it is a download, never a viewer page.
      res
        .type('application/pdf')
        .set({
          'content-disposition': `attachment; filename="mandat-${number}.pdf"`,
          'content-security-policy': "sandbox; default-src 'none'",
        })
        .send(Buffer.from(bytes));
    },
  }),
];
