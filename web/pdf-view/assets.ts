// pdf.js for our pages (the operator's review, the signer's wizard): documents drawn into canvases from our own
// origin, so no browser PDF viewer (a phone's often shows none inline) and no PDF scripting (pdf.js's scripting
// sandbox is not even served). Mounted beside a page's scripts: their pdf-view module (web/page-kit/pdf-view.ts)
// imports `./pdfjs/…` relative to itself.
import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type Router } from 'express';

const PDFJS_DIR = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
// The legacy build runs in older browsers too; only the library and its worker (never pdf.sandbox, the scripting).
const PDFJS_FILES = new Set(['/pdf.min.mjs', '/pdf.worker.min.mjs']);

/** What a page drawing PDFs must allow in its CSP: pdf.js's worker, and WebAssembly for its image decoders (scans). */
export const PDF_VIEW_CSP = { script: "'wasm-unsafe-eval'", worker: "'self'" };

/** Serves pdf.js's files under `at` (e.g. "/assets"); other paths there are left to the page's own. */
export function mountPdfView(r: Router, at: string): void {
  const assets = { index: false, fallthrough: false, maxAge: '1h' };
  r.use(
    `${at}/pdfjs`,
    (req, _res, next) => next(PDFJS_FILES.has(req.path) ? undefined : 'router'),
    express.static(path.join(PDFJS_DIR, 'legacy', 'build'), assets),
  );
  // Fetched by pdf.js's worker as documents need them: fonts a PDF names without embedding, CMaps, image decoders.
  for (const dir of ['standard_fonts', 'cmaps', 'wasm', 'iccs'])
    r.use(`${at}/${dir}`, express.static(path.join(PDFJS_DIR, dir), assets));
}
