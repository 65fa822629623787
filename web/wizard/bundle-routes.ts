// A bundle's link (/reg/bundle/{ref}): one signer's companies of a campaign, their details and identity document
// given once (bundle-service.ts); each company's mandate is then signed in its own wizard, linked from here.
import type { Request } from 'express';
import { z } from 'zod';
import type { MandateDeps } from '../../domain/mandate/context';
import { identityBody } from '../../domain/mandate/inputs';
import { MAX_SMALL_JSON_VALUES, boundedJson } from '../http/bounded-json';
import { rejectNulCharacters } from '../http/no-nul';
import { route } from '../http/route';
import { uploadJson } from '../http/upload-json';
import { IMAGE_REFUSALS, clientOf } from '../signer/routes';
import * as GovFr from '../signer/schemas';
import { bundleState, confirmBundleDetails, openBundle, uploadBundleIdentity } from './bundle-service';
import { detailsBody, LINK_REFUSALS, sendWizardPage } from './routes';

const bundleRef = z.object({ ref: z.string().describe("the bundle link's credential (43 base64url characters)") });
const refOf = (req: Request) => (req.params as { ref: string }).ref;

export const bundleRoutes = [
  route({
    method: 'get',
    path: '/reg/bundle/:ref/start',
    params: bundleRef,
    operationId: 'bundlePage',
    summary: 'The wizard of a signer’s companies (HTML)',
    description:
      "The page of a campaign's bundle: one signer's companies, their details and identity document given once, each company's mandate then signed in its own wizard. The link is in the campaign's `links.csv` (`bundle_link`).",
    responses: { 200: { mediaType: 'text/html' } },
    errors: LINK_REFUSALS,
    handle: async ({ req, res }, deps: MandateDeps) => {
      res.set('cache-control', 'no-store');
      await sendWizardPage(req, res, () => openBundle(deps, refOf(req)), 'bundle.html');
    },
  }),
  route({
    method: 'get',
    path: '/reg/bundle/:ref/api/state',
    operationId: 'bundleState',
    summary: 'Bundle: the companies and how far each is',
    description:
      "The signer, what is still to give once (details, identity document), and each company: its state, whether its mandate is signed and submitted, and its own wizard's link.",
    params: bundleRef,
    responses: { 200: GovFr.bundleState },
    errors: LINK_REFUSALS,
    handle: ({ req }, deps: MandateDeps) => bundleState(deps, refOf(req)),
  }),
  route({
    method: 'post',
    path: '/reg/bundle/:ref/api/details',
    operationId: 'bundleConfirmDetails',
    summary: 'Bundle: confirm the signer’s details for every company',
    description:
      'As the wizard’s first step, once for every company still to submit: the missing signer fields completed, the details confirmed.',
    params: bundleRef,
    body: detailsBody,
    before: [boundedJson({ limit: '16kb', maxValues: MAX_SMALL_JSON_VALUES }), rejectNulCharacters],
    responses: { 204: null },
    examples: { 'the signer completes their details': { id_number: 'X4RTBPFW4' } },
    errors: [...LINK_REFUSALS, 'details-locked', 'invalid-details', 'signer-missing', 'under-review'],
    handle: ({ body, req }, deps: MandateDeps) => confirmBundleDetails(deps, refOf(req), body, clientOf(req)),
  }),
  route({
    method: 'post',
    path: '/reg/bundle/:ref/api/identity',
    operationId: 'bundleUploadIdentity',
    summary: 'Bundle: upload one face of the signer’s identity document, for every company',
    description:
      'One face of the identity document (PNG or JPEG, base64), checked once and kept for every company still to submit, each company’s own upload in its audit trail.',
    params: bundleRef,
    body: identityBody,
    before: [uploadJson, rejectNulCharacters],
    responses: { 204: null },
    examples: { 'the front of an ID card': { view: 'front', data: '<base64 of a JPEG>' } },
    errors: [...LINK_REFUSALS, 'under-review', ...IMAGE_REFUSALS],
    handle: ({ body, req }, deps: MandateDeps) =>
      uploadBundleIdentity(deps, refOf(req), body.view, body.data, clientOf(req)),
  }),
];
