// The operator's review page, mounted at /apps/gov-fr/review: static and public (the data behind it needs the
// operator's key); its scripts are built from web/review/page/ into dist/pages/review. Documents are drawn by pdf.js
// into canvases, from our own origin: no browser PDF viewer, no PDF scripting (pdf.js's scripting sandbox is not even
// served), no third party.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router } from 'express';
import { mountPdfView, PDF_VIEW_CSP } from '../pdf-view/assets';
import { mountRoutes } from '../http/route';
import { reviewPageRoute } from './page-route';
import { pageBundle } from '../page-bundle';

const PUBLIC_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'public');

/**
 * Exactly what the page does: our scripts and pdf.js's worker, WebAssembly for its image decoders (JBIG2, JPEG
 * 2000: scans), fetches to our API, identity images as blob: URLs. Nothing inline, no frames, no eval.
 */
export const REVIEW_CSP = [
  "default-src 'none'",
  `script-src 'self' ${PDF_VIEW_CSP.script}`,
  `worker-src ${PDF_VIEW_CSP.worker}`,
  "connect-src 'self'",
  "img-src 'self' blob:",
  "style-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-src 'none'",
  "object-src 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function reviewPageRouter(): Router {
  const scripts = pageBundle('review'); // at start: a missing or stale build stops it here, not in the browser
  const r = Router();
  r.use((_req, res, next) => {
    res.set({
      'content-security-policy': REVIEW_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
    next();
  });
  r.use(mountRoutes('/apps/gov-fr/review', [reviewPageRoute], undefined));
  mountPdfView(r, '/assets');
  for (const dir of [PUBLIC_DIR, scripts]) r.use('/assets', express.static(dir, { index: false, maxAge: 0 }));
  return r;
}
