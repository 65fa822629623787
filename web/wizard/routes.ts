// The wizard's operations (seed §4.3) at /reg/{ref}: its page, its state and the details step, and the signer's
// operations (web/signer/routes.ts) at /reg/{ref}/api. The ref in the path is the only credential: each call opens it
// again (openRef), so a finished registration closes the wizard at once.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { LANGS } from '../../domain/mandate-document/texts';
import { MandateError, type MandateDeps } from '../../domain/mandate/context';
import { MAX_SMALL_JSON_VALUES, boundedJson } from '../http/bounded-json';
import { rejectNulCharacters } from '../http/no-nul';
import { route } from '../http/route';
import { clientOf, signerRoutes } from '../signer/routes';
import * as GovFr from '../signer/schemas';
import { linkPage, type WizardLang } from './pages';
import { WizardLinkError, confirmDetails, detailsConfirmed, openRef, wizardState, type WizardEntry } from './service';

export const WIZARD_ASSETS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'public');

const wizardRef = z.object({ ref: z.string().describe("the wizard link's credential (43 base64url characters)") });
// Not strict: the page adds a cache-busting parameter to the mandate's address.
const langQuery = z.object({ lang: z.enum(LANGS as ['fr', 'en']).default('fr') });
const field = z.string().trim().max(255).optional();
export const detailsBody = z.strictObject({
  given: field,
  surname: field,
  role: field,
  id_number: z.string().trim().max(64).optional(),
});
export const LINK_REFUSALS = ['link-unknown', 'link-finished', 'link-cancelled'] as const;

/** The entry the link opened (the guard in router.ts opens it before every /api route). */
export const openedEntry = (req: Request) => (req as Request & { wizard: WizardEntry }).wizard;
export const openLink = async (req: Request, deps: MandateDeps) => {
  (req as Request & { wizard: WizardEntry }).wizard = await openRef(deps, (req.params as { ref: string }).ref);
};

const pageLang = (req: Request): WizardLang => (req.query.lang === 'en' ? 'en' : 'fr');

/** A wizard's page (`file`) once `open` finds its link open; otherwise a page in the signer's language saying why. */
export async function sendWizardPage(req: Request, res: Response, open: () => Promise<unknown>, file: string) {
  try {
    await open();
  } catch (err) {
    if (!(err instanceof WizardLinkError)) throw err;
    return void res
      .status(err.reason === 'unknown' ? 404 : 410)
      .type('html')
      .send(linkPage(pageLang(req), err.reason, err.entryState));
  }
  res.sendFile(path.join(WIZARD_ASSETS, file));
}

export const wizardRoutes = [
  route({
    method: 'get',
    path: '/reg/:ref/start',
    params: wizardRef,
    operationId: 'wizardPage',
    summary: 'The registration wizard (HTML)',
    description:
      "The signer's wizard: the link published in the entry's `approval-link` meta. Its ref is the only credential.",
    responses: { 200: { mediaType: 'text/html' } },
    errors: LINK_REFUSALS,
    // Its ref is read raw: an unknown link is a page in the signer's language, not a problem document.
    handle: async ({ req, res }, deps: MandateDeps) => {
      res.set('cache-control', 'no-store');
      // The page's assets are relative (../assets/): with a trailing slash they would miss. One address only.
      if (req.originalUrl.split('?')[0]!.endsWith('/')) {
        const q = req.originalUrl.indexOf('?');
        const ref = encodeURIComponent((req.params as { ref: string }).ref);
        return void res.redirect(301, `${req.baseUrl}/${ref}/start${q >= 0 ? req.originalUrl.slice(q) : ''}`);
      }
      await sendWizardPage(req, res, () => openRef(deps, (req.params as { ref: string }).ref), 'page.html');
    },
  }),
  route({
    method: 'get',
    path: '/reg/:ref/api/state',
    operationId: 'wizardState',
    summary: 'Wizard: progress and the details shown',
    description: "The wizard's state: the details shown to the signer and the step reached.",
    params: wizardRef,
    responses: { 200: GovFr.wizardState },
    errors: LINK_REFUSALS,
    handle: ({ req }, deps: MandateDeps) => wizardState(deps, openedEntry(req)),
  }),
  route({
    method: 'post',
    path: '/reg/:ref/api/details',
    operationId: 'wizardConfirmDetails',
    summary: 'Wizard: confirm the details, completing missing signer fields',
    description: 'The signer confirms the details, completing the missing signer fields.',
    params: wizardRef,
    body: detailsBody,
    before: [boundedJson({ limit: '16kb', maxValues: MAX_SMALL_JSON_VALUES }), rejectNulCharacters],
    responses: { 204: null },
    examples: {
      'the signer completes their details': {
        given: 'Élodie',
        surname: 'Martin',
        role: 'Présidente',
        id_number: 'X4RTBPFW4',
      },
    },
    errors: [...LINK_REFUSALS, 'details-locked', 'invalid-details', 'signer-missing', 'under-review'],
    handle: ({ body, req }, deps: MandateDeps) => confirmDetails(deps, openedEntry(req), body, clientOf(req)),
  }),
  ...signerRoutes({
    base: '/reg/:ref/api',
    params: wizardRef,
    langQuery,
    name: { operation: 'wizard', summary: 'Wizard: ' },
    refusals: LINK_REFUSALS,
    entry: async (req) => openedEntry(req),
    // The wizard's first step is the signer reviewing the details: a submission through it needs that done.
    beforeSubmit: async (deps, entry) => {
      if (!(await detailsConfirmed(deps, entry)))
        throw new MandateError('details-unconfirmed', 'confirm the party details first (step 1)');
    },
    note: 'Through the wizard: its link opens this entry and nothing else.',
  }),
];
