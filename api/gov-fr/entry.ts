// apps/gov-fr/v1/entry: the signer's operations by API (seed §4.1; declared once with the wizard's, in
// web/signer/routes.ts), the wizard link revoked or issued again (an integrator's key), and the decision and identity
// images (the platform's operators, across workspaces).
import { z } from 'zod';
import { LANGS } from '../../domain/mandate-document/texts';
import type { MandateDeps } from '../../domain/mandate/context';
import { reissueLink, revokeLink } from '../../domain/mandate/signer-link';
import { decide } from '../../domain/mandate/decision';
import { identityImageSeen, workspaceForOperator } from '../../domain/operators/review-access';
import { decisionBody } from '../../domain/mandate/inputs';
import { MAX_SMALL_JSON_VALUES, boundedJson } from '../../web/http/bounded-json';
import { rejectNulCharacters } from '../../web/http/no-nul';
import { route } from '../../web/http/route';
import { signerRoutes } from '../../web/signer/routes';
import * as GovFr from '../../web/signer/schemas';
import * as R from '../schemas';
import { auth, operator } from '../auth';

const entryParam = z.object({ silo_entry_id: z.uuid({ error: 'must be a UUID' }) });
const viewParam = entryParam.extend({ view: z.enum(['front', 'back', 'page']) });
const langQuery = z.strictObject({ lang: z.enum(LANGS as ['fr', 'en']).default('fr') });
const ENTRY = '/apps/gov-fr/v1/entry/:silo_entry_id';
const entryApiNote =
  'The entry must have a registration waiting at its approval step (a `gov-fr.agreement.sign` step has issued its mandate).';

type Deps = MandateDeps;

export const entryRoutes = [
  ...signerRoutes({
    base: ENTRY,
    params: entryParam,
    langQuery,
    scope: 'entries:rw',
    refusals: ['no-mandate', 'mandate-voided'],
    entry: async (req, res) => ({
      workspaceId: auth(res).workspaceId,
      entryId: entryParam.parse(req.params).silo_entry_id,
    }),
    note: entryApiNote,
  }),
  route({
    method: 'delete',
    path: `${ENTRY}/approval-link`,
    operationId: 'revokeLink',
    summary: 'Revoke the wizard link',
    description: "Revokes the signer's wizard link (a link sent to the wrong person): it opens nothing from now on.",
    scope: 'entries:rw',
    params: entryParam,
    responses: { 204: null },
    handle: ({ params, res }, deps: Deps) => revokeLink(deps, auth(res).workspaceId, params.silo_entry_id),
  }),
  route({
    method: 'post',
    path: `${ENTRY}/approval-link`,
    operationId: 'reissueLink',
    summary: 'Issue a new wizard link for the waiting registration',
    description: 'Issues a new wizard link for the waiting registration; the old one stops working.',
    scope: 'entries:rw',
    params: entryParam,
    responses: { 201: R.meta },
    errors: ['no-mandate', 'mandate-voided', 'not-waiting'],
    handle: ({ params, res }, deps: Deps) => reissueLink(deps, auth(res).workspaceId, params.silo_entry_id),
  }),
  route({
    method: 'post',
    path: `${ENTRY}/decision`,
    operationId: 'decide',
    summary: 'Approve or reject a submission (operator)',
    description:
      "The operator's decision on the submission (an operator with the `decide` role; no API key). Approved, the registration goes on to the directory and Peppol; rejected, the signer is asked for a new submission, with your reason. " +
      "Four eyes: when the decision policy names the submission (a take-over, a scan, a name unlike the Annuaire's, a company not active, by default), an approval is a first approval (`awaiting: second-approval`) and the registration waits for another operator to approve or reject; the same operator again is 409 `same-operator`. " +
      'A decision and a cancellation of the job racing: exactly one wins; a cancellation first makes the decision 409 `job-cancelled`, an approval first makes the cancellation 409 `already-decided`.',
    operator: 'decide',
    params: entryParam,
    body: decisionBody,
    before: [boundedJson({ limit: '16kb', maxValues: MAX_SMALL_JSON_VALUES }), rejectNulCharacters],
    responses: { 200: GovFr.decision },
    examples: {
      approve: { approved: true },
      reject: { approved: false, reason: 'The identity document is illegible: upload a sharper photo.' },
    },
    errors: [
      'no-mandate',
      'mandate-voided',
      'nothing-to-decide',
      'decided',
      'same-operator',
      'job-cancelled',
      'not-waiting',
      'not-running',
      'unavailable',
    ],
    handle: async ({ params, body, res }, deps: Deps) =>
      decide(deps, await workspaceForOperator(deps.db, params.silo_entry_id), params.silo_entry_id, {
        ...body,
        operatorId: operator(res).operatorId,
      }),
  }),
  route({
    method: 'get',
    path: `${ENTRY}/identity/:view`,
    operationId: 'getIdentityImage',
    summary: 'An identity image, decrypted (operator)',
    description:
      'An identity document image as uploaded, decrypted, for the operator (`decide` role); each view is in the access log.',
    operator: 'decide',
    params: viewParam,
    responses: { 200: { mediaType: 'image/*' } },
    handle: async ({ params, res }, deps: Deps) => {
      const img = await identityImageSeen(deps, operator(res), params.silo_entry_id, params.view);
      // Checked as that type at upload (no-store and nosniff come with every response); never run as a document.
      res.type(img.mime).set('content-security-policy', "default-src 'none'; sandbox").send(img.data);
    },
  }),
];
