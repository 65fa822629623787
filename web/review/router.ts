// The operator's review page, mounted at /apps/gov-fr/review: static and public (the data behind it needs the
// operator's key). Documents are drawn by pdf.js into canvases, from our own origin: no browser PDF viewer, no
// PDF scripting (pdf.js's scripting sandbox is not even served), no third party.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router } from 'express';

const PUBLIC_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'public');
const PDFJS_DIR = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
// The legacy build runs in older browsers too; only the library and its worker (never pdf.sandbox, the scripting).
const PDFJS_FILES = new Set(['/pdf.min.mjs', '/pdf.worker.min.mjs']);

/**
 * Exactly what the page does: our scripts and pdf.js's worker, WebAssembly for its image decoders (JBIG2, JPEG
 * 2000: scans), fetches to our API, identity images as blob: URLs. Nothing inline, no frames, no eval.
 */
export const REVIEW_CSP = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
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
  const r = Router();
  r.use((_req, res, next) => {
    res.set({
      'content-security-policy': REVIEW_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
    next();
  });
  r.get('/', (req, res) => {
    // Its assets are relative: served at /apps/gov-fr/review it would miss them (routing ignores the trailing slash).
    if (!req.originalUrl.split('?')[0]!.endsWith('/')) return res.redirect(301, `${req.baseUrl}/`);
    res.set('cache-control', 'no-cache').sendFile(path.join(PUBLIC_DIR, 'page.html'));
  });
  const assets = { index: false, fallthrough: false, maxAge: '1h' };
  r.use(
    '/assets/pdfjs',
    (req, _res, next) => next(PDFJS_FILES.has(req.path) ? undefined : 'router'),
    express.static(path.join(PDFJS_DIR, 'legacy', 'build'), assets),
  );
  // Fetched by pdf.js's worker as documents need them: fonts a PDF names without embedding, CMaps, image decoders.
  for (const dir of ['standard_fonts', 'cmaps', 'wasm', 'iccs'])
    r.use(`/assets/${dir}`, express.static(path.join(PDFJS_DIR, dir), assets));
  r.use('/assets', express.static(PUBLIC_DIR, { ...assets, fallthrough: true, maxAge: 0 }));
  return r;
}
