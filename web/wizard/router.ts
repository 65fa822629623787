// The registration wizard (seed §4.3), mounted at /reg without API key: the ref in the path is the only credential
// and opens this entry's wizard and nothing else.
//   GET  /reg/{ref}/start                the wizard page (static; a clear page for unknown or finished links)
//   GET  /reg/{ref}/api/state            progress, for the page to resume where the signer left it
//   POST /reg/{ref}/api/details          confirm the party details, completing missing signer fields
//   GET  /reg/{ref}/api/agreement        the mandate PDF (?lang=fr|en)
//   POST /reg/{ref}/api/identity|sign|agreement|confirm   as the entry API, same service functions and limits
//   GET  /reg/assets/*                   our page, styles and scripts (built into dist/pages/wizard), the signature
//                                        pad and pdf.js: no third-party requests
// Errors are problem+json with a `code` the page translates, so a page never mixes languages.
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { mountPdfView, PDF_VIEW_CSP } from '../pdf-view/assets';
import { pageBundle } from '../page-bundle';
import express, { Router } from 'express';
import { z } from 'zod';
import { LANGS } from '../../domain/mandate/texts';
import { SigningError, agreementPdf, type SigningDeps } from '../../domain/submission/service';
import { signInApp, uploadIdentity, uploadSignedAgreement } from '../../domain/submission/signature';
import { confirm } from '../../domain/submission/decision';
import { agreementBody, identityBody, signBody } from '../../domain/submission/inputs';
import { uploadJson } from '../http/upload-json';
import { MAX_SMALL_JSON_VALUES, boundedJson } from '../http/bounded-json';
import { rejectNulCharacters } from '../http/no-nul';
import { sendProblem } from '../http/problem';
import { body, query } from '../http/validate';
import { linkPage, type WizardLang } from './pages';
import { WizardLinkError, confirmDetails, detailsConfirmed, openRef, wizardState, type WizardEntry } from './service';

const PUBLIC_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'public');
const require = createRequire(import.meta.url);
// The package exports only its entry points; its ES module build sits beside the CommonJS one.
const SIGNATURE_PAD = path.join(path.dirname(require.resolve('signature_pad')), 'signature_pad.js');
const HANDWRITING = require.resolve('@expo-google-fonts/dancing-script/400Regular/DancingScript_400Regular.ttf');

// Not strict: the page adds a cache-busting parameter to the mandate's address.
export const langQuery = z.object({ lang: z.enum(LANGS as ['fr', 'en']).default('fr') });
const field = z.string().trim().max(255).optional();
export const detailsBody = z.strictObject({
  given: field,
  surname: field,
  role: field,
  id_number: z.string().trim().max(64).optional(),
});
const smallJson = boundedJson({ limit: '16kb', maxValues: MAX_SMALL_JSON_VALUES });

const clientOf = (req: express.Request) => ({ ip: req.ip, userAgent: req.get('user-agent') });

export function wizardRouter(deps: SigningDeps): Router {
  const scripts = pageBundle('wizard'); // at start: a missing or stale build stops it here, not in the browser
  const r = Router();
  const frameAncestors = ["'self'", ...deps.config.WIZARD_FRAME_ANCESTORS].join(' ');
  // Embeddable only by the origins configured; everything it loads is ours. The ref is in the URL: no Referer.
  const csp = [
    "default-src 'self'",
    `script-src 'self' ${PDF_VIEW_CSP.script}`,
    `worker-src ${PDF_VIEW_CSP.worker}`,
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "frame-src 'none'", // the mandate is drawn by pdf.js, never in the browser's PDF viewer
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    `frame-ancestors ${frameAncestors}`,
  ].join('; ');
  r.use((_req, res, next) => {
    res.set({ 'content-security-policy': csp, 'referrer-policy': 'no-referrer', 'x-content-type-options': 'nosniff' });
    next();
  });

  for (const dir of [PUBLIC_DIR, scripts]) r.use('/assets', express.static(dir, { index: false, maxAge: '1h' }));
  mountPdfView(r, '/assets');
  r.get('/assets/signature_pad.js', (_req, res) =>
    res.type('text/javascript').set('cache-control', 'public, max-age=3600').sendFile(SIGNATURE_PAD),
  );
  // The typed signature's preview uses the font the mandate embeds.
  r.get('/assets/handwriting.ttf', (_req, res) =>
    res.type('font/ttf').set('cache-control', 'public, max-age=86400').sendFile(HANDWRITING),
  );

  const pageLang = (req: express.Request): WizardLang => (req.query.lang === 'en' ? 'en' : 'fr');

  r.get('/:ref/start', async (req, res) => {
    res.set('cache-control', 'no-store');
    // The page's assets are relative (../assets/): with a trailing slash they would miss. One address only.
    if (req.originalUrl.split('?')[0]!.endsWith('/')) {
      const q = req.originalUrl.indexOf('?');
      return void res.redirect(
        301,
        `${req.baseUrl}/${encodeURIComponent(req.params.ref)}/start${q >= 0 ? req.originalUrl.slice(q) : ''}`,
      );
    }
    try {
      await openRef(deps, req.params.ref);
    } catch (err) {
      if (!(err instanceof WizardLinkError)) throw err;
      return void res
        .status(err.reason === 'unknown' ? 404 : 410)
        .type('html')
        .send(linkPage(pageLang(req), err.reason, err.entryState));
    }
    res.sendFile(path.join(PUBLIC_DIR, 'page.html'));
  });

  // The JSON API: every call opens the ref again, so a finished registration closes the wizard at once.
  const api = Router({ mergeParams: true });
  r.use('/:ref/api', (_req, res, next) => void (res.set('cache-control', 'no-store'), next()), api);
  const entryOf = (req: express.Request) => (req as express.Request & { wizard: WizardEntry }).wizard;
  api.use(async (req, _res, next) => {
    (req as express.Request & { wizard: WizardEntry }).wizard = await openRef(
      deps,
      (req.params as { ref: string }).ref,
    );
    next();
  });

  api.get('/state', async (req, res) => void res.json(await wizardState(deps, entryOf(req))));

  api.post('/details', smallJson, rejectNulCharacters, async (req, res) => {
    await confirmDetails(deps, entryOf(req), body(req, detailsBody), clientOf(req));
    res.status(204).end();
  });

  api.get('/agreement', async (req, res) => {
    const { lang } = query(req, langQuery);
    const w = entryOf(req);
    const { pdf, number } = await agreementPdf(deps, w.workspaceId, w.entryId, lang);
    res
      .type('application/pdf')
      .set('content-disposition', `inline; filename="mandat-${number}.pdf"`)
      .send(Buffer.from(pdf));
  });

  api.post('/identity', uploadJson, rejectNulCharacters, async (req, res) => {
    const w = entryOf(req);
    const b = body(req, identityBody);
    await uploadIdentity(deps, w.workspaceId, w.entryId, b.view, b.data, clientOf(req));
    res.status(204).end();
  });

  api.post('/sign', uploadJson, rejectNulCharacters, async (req, res) => {
    const w = entryOf(req);
    const b = body(req, signBody);
    const { lang } = query(req, langQuery);
    await signInApp(deps, w.workspaceId, w.entryId, b.signature || undefined, clientOf(req), lang, b.mandate_number);
    res.status(204).end();
  });

  api.post('/agreement', uploadJson, rejectNulCharacters, async (req, res) => {
    const w = entryOf(req);
    const b = body(req, agreementBody);
    await uploadSignedAgreement(deps, w.workspaceId, w.entryId, b.data, clientOf(req));
    res.status(204).end();
  });

  api.post('/confirm', async (req, res) => {
    const w = entryOf(req);
    // The wizard's first step is the signer reviewing the details: a submission through it needs that done.
    if (!(await detailsConfirmed(deps, w))) {
      throw new SigningError('details-unconfirmed', 'confirm the party details first (step 1)');
    }
    res.json(await confirm(deps, w.workspaceId, w.entryId, clientOf(req)));
  });

  // A link that opens nothing any more; the domain's refusals go to the app's problem handler, with the code the page translates.
  api.use(((err, _req, res, next) => {
    if (err instanceof WizardLinkError) {
      const code =
        err.reason === 'unknown' ? 'link-unknown' : err.entryState === 'cancelled' ? 'link-cancelled' : 'link-finished';
      return sendProblem(
        res,
        err.reason === 'unknown' ? 404 : 410,
        code === 'link-cancelled' ? 'this registration was cancelled' : err.message,
        undefined,
        { code },
      );
    }
    next(err);
  }) as express.ErrorRequestHandler);

  // A page address that cannot even be decoded (broken percent-encoding) is an unknown link, shown as such.
  r.use(((err, req, res, next) => {
    if ((err as { status?: number }).status === 400 && /\/start\/?$/.test(req.path)) {
      return void res
        .status(404)
        .type('html')
        .send(linkPage(pageLang(req), 'unknown'));
    }
    next(err);
  }) as express.ErrorRequestHandler);

  return r;
}
