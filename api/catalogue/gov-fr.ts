// apps/gov-fr/v1: the entry API (the signer's steps by API), the operator's review and decision, directory
// lookups; and the operator review page.
import { identifierParam, sirenParam } from '../gov-fr-directory-v1';
import { entryParam, langQuery, viewParam } from '../gov-fr-v1';
import { agreementBody, decisionBody, identityBody, signBody } from '../../domain/submission/inputs';
import { reviewEntryParam } from '../review-v1';
import * as R from '../schemas';
import * as GovFr from '../gov-fr-schemas';
import { entryApiNote, pdf, SIGNED_PDF_REFUSALS } from '../reference';
import type { Operation, OperationDoc } from './operation';

export const operations: Operation[] = [
  {
    method: 'get',
    path: '/apps/gov-fr/v1/entry/:silo_entry_id/agreement',
    summary: 'The mandate PDF (pre-filled, or signed)',
    scope: 'entries:rw',
    params: entryParam,
    query: langQuery,
    responses: { 200: pdf },
  },
  {
    method: 'post',
    path: '/apps/gov-fr/v1/entry/:silo_entry_id/identity',
    summary: 'Upload one face of an identity document',
    scope: 'entries:rw',
    params: entryParam,
    body: identityBody,
    responses: { 204: null },
  },
  {
    method: 'post',
    path: '/apps/gov-fr/v1/entry/:silo_entry_id/sign',
    summary: 'Sign the mandate (drawn image, or typed name)',
    scope: 'entries:rw',
    params: entryParam,
    query: langQuery,
    body: signBody,
    responses: { 204: null },
  },
  {
    method: 'post',
    path: '/apps/gov-fr/v1/entry/:silo_entry_id/agreement',
    summary: 'Upload a mandate signed elsewhere',
    scope: 'entries:rw',
    params: entryParam,
    body: agreementBody,
    responses: { 204: null },
  },
  {
    method: 'post',
    path: '/apps/gov-fr/v1/entry/:silo_entry_id/confirm',
    summary: 'Submit for the approval review',
    scope: 'entries:rw',
    params: entryParam,
    responses: { 200: GovFr.submitted },
  },
  {
    method: 'delete',
    path: '/apps/gov-fr/v1/entry/:silo_entry_id/approval-link',
    summary: 'Revoke the wizard link',
    scope: 'entries:rw',
    params: entryParam,
    responses: { 204: null },
  },
  {
    method: 'post',
    path: '/apps/gov-fr/v1/entry/:silo_entry_id/approval-link',
    summary: 'Issue a new wizard link for the waiting registration',
    scope: 'entries:rw',
    params: entryParam,
    responses: { 201: R.meta },
  },
  {
    method: 'post',
    path: '/apps/gov-fr/v1/entry/:silo_entry_id/decision',
    summary: 'Approve or reject a submission (operator)',
    scope: 'approvals',
    params: entryParam,
    body: decisionBody,
    responses: { 200: GovFr.decision },
  },
  {
    method: 'get',
    path: '/apps/gov-fr/v1/entry/:silo_entry_id/identity/:view',
    summary: 'An identity image, decrypted (operator)',
    scope: 'approvals',
    params: viewParam,
    responses: { 200: { mediaType: 'image/*' } },
  },
  {
    method: 'get',
    path: '/apps/gov-fr/v1/review/submissions',
    summary: 'Submissions awaiting a decision (operator)',
    scope: 'approvals',
    responses: { 200: GovFr.submissions },
  },
  {
    method: 'get',
    path: '/apps/gov-fr/v1/review/submissions/:silo_entry_id',
    summary: 'A submission as the operator reviews it: party, signer, identity images, Annuaire record (operator)',
    scope: 'approvals',
    params: reviewEntryParam,
    responses: { 200: GovFr.reviewSubmission },
  },
  {
    method: 'get',
    path: '/apps/gov-fr/v1/review/submissions/:silo_entry_id/mandate',
    summary: 'The signed mandate under review (operator)',
    scope: 'approvals',
    params: reviewEntryParam,
    responses: { 200: pdf },
  },
  {
    method: 'get',
    path: '/apps/gov-fr/v1/directory/siren/:siren',
    summary: 'Directory lines of a SIREN (PPF Annuaire)',
    scope: 'entries:rw',
    params: sirenParam,
    responses: { 200: GovFr.directoryLookup },
  },
  {
    method: 'get',
    path: '/apps/gov-fr/v1/directory/identifier/:identifier',
    summary: 'Directory lines of an addressing identifier',
    scope: 'entries:rw',
    params: identifierParam,
    responses: { 200: GovFr.directoryLookup },
  },
  {
    method: 'get',
    path: '/apps/gov-fr/review/',
    summary: 'The operator review page (HTML; its data needs the approvals scope)',
    responses: { 200: { mediaType: 'text/html' } },
  },
];

export const docs: Record<string, OperationDoc> = {
  'get /apps/gov-fr/v1/entry/:silo_entry_id/agreement': {
    description: `The mandate as a PDF: pre-filled until it is signed, then the signed one (sealed once submitted). \`lang=en\` for the English text. ${entryApiNote}`,
    errors: ['no-mandate', 'mandate-voided', 'signer-missing'],
  },
  'post /apps/gov-fr/v1/entry/:silo_entry_id/identity': {
    description: `Uploads one face of the signer's identity document (PNG or JPEG, base64): \`front\` and \`back\` of an identity card, or a passport \`page\`. ${entryApiNote}`,
    examples: { 'the front of an ID card': { view: 'front', data: '<base64 of a JPEG>' } },
    errors: [
      'no-mandate',
      'mandate-voided',
      'under-review',
      'bad-encoding',
      'empty',
      'busy',
      'image-too-large',
      'not-an-image',
      'unreadable-image',
      'too-complex',
    ],
  },
  'post /apps/gov-fr/v1/entry/:silo_entry_id/sign': {
    description:
      "Signs the mandate in the app: with a drawn signature (a PNG, base64) or, without one, the signer's typed name. " +
      'The mandate signed is the one current when the request arrives: issued again meanwhile (a party change), 409 `mandate-replaced`. ' +
      '`mandate_number` (optional, our addition to the public contract) names the mandate the signer read: 409 `mandate-replaced` when it is no longer current. ' +
      'Without it, the mandate last downloaded (GET agreement, here or in the wizard) stands for what was read: issued again since, 409 `mandate-changed` — download it again, or name it. ' +
      entryApiNote,
    examples: {
      typed: {},
      drawn: { signature: '<base64 of a PNG>' },
      'naming the mandate read': { mandate_number: '356000000_552032534_20261122_01' },
    },
    errors: [
      'no-mandate',
      'mandate-voided',
      'mandate-replaced',
      'mandate-changed',
      'signer-missing',
      'under-review',
      'bad-encoding',
      'empty',
      'busy',
      'image-too-large',
      'not-an-image',
      'unreadable-image',
      'too-complex',
    ],
  },
  'post /apps/gov-fr/v1/entry/:silo_entry_id/agreement': {
    description: `Uploads the mandate signed elsewhere (a PDF, base64): digitally signed, with a signature added, or printed, signed and scanned. It must be this entry's current mandate. ${entryApiNote}`,
    examples: { 'a signed PDF': { data: '<base64 of the signed PDF>' } },
    errors: [
      'no-mandate',
      'mandate-voided',
      'mandate-replaced',
      'signer-missing',
      'under-review',
      ...SIGNED_PDF_REFUSALS,
    ],
  },
  'post /apps/gov-fr/v1/entry/:silo_entry_id/confirm': {
    description:
      "Submits the signed mandate and the identity document for the operator's review; the entry goes `submitted`.",
    errors: ['no-mandate', 'mandate-voided', 'incomplete', 'not-waiting', 'not-yet', 'not-running', 'unavailable'],
  },
  'delete /apps/gov-fr/v1/entry/:silo_entry_id/approval-link': {
    description: "Revokes the signer's wizard link (a link sent to the wrong person): it opens nothing from now on.",
  },
  'post /apps/gov-fr/v1/entry/:silo_entry_id/approval-link': {
    description: 'Issues a new wizard link for the waiting registration; the old one stops working.',
    errors: ['no-mandate', 'mandate-voided', 'not-waiting'],
  },
  'post /apps/gov-fr/v1/entry/:silo_entry_id/decision': {
    description:
      "The operator's decision on the submission (scope `approvals`). Approved, the registration goes on to the directory and Peppol; rejected, the signer is asked for a new submission, with your reason. " +
      'A decision and a cancellation of the job racing: exactly one wins; a cancellation first makes the decision 409 `job-cancelled`, an approval first makes the cancellation 409 `already-decided`.',
    examples: {
      approve: { approved: true },
      reject: { approved: false, reason: 'The identity document is illegible: upload a sharper photo.' },
    },
    errors: [
      'no-mandate',
      'mandate-voided',
      'nothing-to-decide',
      'decided',
      'job-cancelled',
      'not-waiting',
      'not-running',
      'unavailable',
    ],
  },
  'get /apps/gov-fr/v1/entry/:silo_entry_id/identity/:view': {
    description: 'An identity document image as uploaded, decrypted, for the operator (scope `approvals`).',
  },
  'get /apps/gov-fr/v1/review/submissions': {
    description: 'The submissions awaiting a decision, oldest first (scope `approvals`).',
  },
  'get /apps/gov-fr/v1/review/submissions/:silo_entry_id': {
    description:
      "What the operator decides on: the party, the signer, the identity images, the mandate, the company's lines in the PPF Annuaire.",
  },
  'get /apps/gov-fr/v1/review/submissions/:silo_entry_id/mandate': {
    description: 'The signed mandate under review, as a PDF.',
    errors: ['mandate-voided'],
  },
  'get /apps/gov-fr/v1/directory/siren/:siren': {
    description: "The company's lines in the PPF Annuaire: which platform receives its invoices today.",
    errors: ['annuaire-unavailable', 'annuaire-refused'],
  },
  'get /apps/gov-fr/v1/directory/identifier/:identifier': {
    description: 'The lines of an addressing identifier in the PPF Annuaire.',
    errors: ['annuaire-unavailable', 'annuaire-refused'],
  },
  'get /apps/gov-fr/review/': {
    description: "The operator's review page; its data needs a key with the `approvals` scope.",
  },
};
