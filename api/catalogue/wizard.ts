// The wizard: its address is the link published in the approval-link meta (seed §2); the ref is the credential.
import { z } from 'zod';
import { agreementBody, identityBody, signBody } from '../../domain/submission/inputs';
import * as GovFr from '../gov-fr-schemas';
import { detailsBody, langQuery as wizardLangQuery } from '../../web/wizard/router';
import { pdf, SIGNED_PDF_REFUSALS } from '../reference';
import type { Operation, OperationDoc } from './operation';

const wizardRef = z.object({ ref: z.string().describe("the wizard link's credential (43 base64url characters)") });
const withRef = (p?: z.ZodObject) => (p ? wizardRef.extend(p.shape) : wizardRef);

export const operations: Operation[] = [
  {
    method: 'get',
    path: '/reg/:ref/start',
    summary: 'The registration wizard (HTML)',
    params: wizardRef,
    responses: { 200: { mediaType: 'text/html' } },
  },
  {
    method: 'get',
    path: '/reg/:ref/api/state',
    summary: 'Wizard: progress and the details shown',
    params: wizardRef,
    responses: { 200: GovFr.wizardState },
  },
  {
    method: 'post',
    path: '/reg/:ref/api/details',
    summary: 'Wizard: confirm the details, completing missing signer fields',
    params: wizardRef,
    body: detailsBody,
    responses: { 204: null },
  },
  {
    method: 'get',
    path: '/reg/:ref/api/agreement',
    summary: 'Wizard: the mandate PDF',
    params: wizardRef,
    query: wizardLangQuery,
    responses: { 200: pdf },
  },
  {
    method: 'post',
    path: '/reg/:ref/api/identity',
    summary: 'Wizard: upload one face of an identity document',
    params: wizardRef,
    body: identityBody,
    responses: { 204: null },
  },
  {
    method: 'post',
    path: '/reg/:ref/api/sign',
    summary: 'Wizard: sign the mandate',
    params: withRef(),
    query: wizardLangQuery,
    body: signBody,
    responses: { 204: null },
  },
  {
    method: 'post',
    path: '/reg/:ref/api/agreement',
    summary: 'Wizard: upload a mandate signed elsewhere',
    params: wizardRef,
    body: agreementBody,
    responses: { 204: null },
  },
  {
    method: 'post',
    path: '/reg/:ref/api/confirm',
    summary: 'Wizard: submit for the approval review',
    params: wizardRef,
    responses: { 200: GovFr.submitted },
  },
];

export const docs: Record<string, OperationDoc> = {
  'get /reg/:ref/start': {
    description:
      "The signer's wizard: the link published in the entry's `approval-link` meta. Its ref is the only credential.",
    errors: ['link-unknown', 'link-finished', 'link-cancelled'],
  },
  'get /reg/:ref/api/state': {
    description: "The wizard's state: the details shown to the signer and the step reached.",
    errors: ['link-unknown', 'link-finished', 'link-cancelled'],
  },
  'post /reg/:ref/api/details': {
    description: 'The signer confirms the details, completing the missing signer fields.',
    examples: {
      'the signer completes their details': {
        given: 'Élodie',
        surname: 'Martin',
        role: 'Présidente',
        id_number: 'X4RTBPFW4',
      },
    },
    errors: [
      'link-unknown',
      'link-finished',
      'link-cancelled',
      'details-locked',
      'invalid-details',
      'signer-missing',
      'under-review',
    ],
  },
  'get /reg/:ref/api/agreement': {
    description: 'The mandate PDF, in the wizard.',
    errors: ['link-unknown', 'link-finished', 'link-cancelled', 'no-mandate', 'mandate-voided', 'signer-missing'],
  },
  'post /reg/:ref/api/identity': {
    description: "The wizard's identity upload.",
    examples: { 'a passport page': { view: 'page', data: '<base64 of a JPEG>' } },
    errors: [
      'link-unknown',
      'link-finished',
      'link-cancelled',
      'under-review',
      'bad-encoding',
      'empty',
      'busy',
      'image-too-large',
      'not-an-image',
      'unreadable-image',
      'too-complex',
      'details-unconfirmed',
    ],
  },
  'post /reg/:ref/api/sign': {
    description:
      "The wizard's signature, under the entry API's rules: the wizard names the mandate shown (`mandate_number`); without it, a mandate issued again since it was last downloaded is refused (409 `mandate-changed`).",
    examples: { typed: {}, drawn: { signature: '<base64 of a PNG>' } },
    errors: [
      'link-unknown',
      'link-finished',
      'link-cancelled',
      'under-review',
      'mandate-replaced',
      'mandate-changed',
      'signer-missing',
      'bad-encoding',
      'empty',
      'busy',
      'image-too-large',
      'not-an-image',
      'unreadable-image',
      'too-complex',
      'details-unconfirmed',
    ],
  },
  'post /reg/:ref/api/agreement': {
    description: "The wizard's upload of a mandate signed elsewhere.",
    examples: { 'a signed PDF': { data: '<base64 of the signed PDF>' } },
    errors: [
      'link-unknown',
      'link-finished',
      'link-cancelled',
      'under-review',
      'mandate-replaced',
      'signer-missing',
      ...SIGNED_PDF_REFUSALS,
      'details-unconfirmed',
    ],
  },
  'post /reg/:ref/api/confirm': {
    description: "The wizard's submission for review.",
    errors: [
      'link-unknown',
      'link-finished',
      'link-cancelled',
      'incomplete',
      'not-waiting',
      'not-yet',
      'not-running',
      'unavailable',
      'details-unconfirmed',
    ],
  },
};
