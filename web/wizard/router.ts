// The registration wizard (seed §4.3), mounted at /reg without API key: the ref in the path is the only credential
// and opens this entry's wizard and nothing else.
// Its operations are declared in routes.ts; here: its security headers, its assets (our page, styles and scripts,
// built into dist/pages/wizard; the signature pad and pdf.js at /reg/assets/*: no third-party requests), and its links
// that open nothing.
// Errors are problem+json with a `code` the page translates, so a page never mixes languages.
import path from 'node:path';
import { createRequire } from 'node:module';
import { mountPdfView, PDF_VIEW_CSP } from '../pdf-view/assets';
import { pageBundle } from '../page-bundle';
import express, { Router } from 'express';
import type { MandateDeps } from '../../domain/mandate/context';
import { sendProblem } from '../http/problem';
import { mountRoutes } from '../http/route';
import { linkPage, type WizardLang } from './pages';
import { WizardLinkError } from './service';
import { openLink, wizardRoutes, WIZARD_ASSETS } from './routes';
import { bundleRoutes } from './bundle-routes';

const require = createRequire(import.meta.url);
// The package exports only its entry points; its ES module build sits beside the CommonJS one.
const SIGNATURE_PAD = path.join(path.dirname(require.resolve('signature_pad')), 'signature_pad.js');
const HANDWRITING = require.resolve('@expo-google-fonts/dancing-script/400Regular/DancingScript_400Regular.ttf');

export function wizardRouter(deps: MandateDeps): Router {
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

  for (const dir of [WIZARD_ASSETS, scripts]) r.use('/assets', express.static(dir, { index: false, maxAge: '1h' }));
  mountPdfView(r, '/assets');
  r.get('/assets/signature_pad.js', (_req, res) =>
    res.type('text/javascript').set('cache-control', 'public, max-age=3600').sendFile(SIGNATURE_PAD),
  );
  // The typed signature's preview uses the font the mandate embeds.
  r.get('/assets/handwriting.ttf', (_req, res) =>
    res.type('font/ttf').set('cache-control', 'public, max-age=86400').sendFile(HANDWRITING),
  );

  const pageLang = (req: express.Request): WizardLang => (req.query.lang === 'en' ? 'en' : 'fr');
  // The JSON API: every call opens the ref again, so a finished registration closes the wizard at once.
  const noStore: express.RequestHandler = (_req, res, next) => void (res.set('cache-control', 'no-store'), next());
  const api: express.RequestHandler[] = [
    noStore,
    async (req, _res, next) => {
      await openLink(req, deps);
      next();
    },
  ];
  // A bundle's routes open their bundle themselves (web/wizard/bundle-service.ts).
  const before = (path: string) =>
    path.startsWith('/reg/:ref/api/') ? api : path.startsWith('/reg/bundle/') ? [noStore] : [];
  r.use(mountRoutes('/reg', [...wizardRoutes, ...bundleRoutes], deps, (route) => before(route.path)));

  // A link that opens nothing any more; the domain's refusals go to the app's problem handler, with the code the page translates.
  r.use(((err, _req, res, next) => {
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
