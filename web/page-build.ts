// Builds the pages' scripts with esbuild: each page's TypeScript and the page kit into one module (its strings
// apart, as `i18n.js`), pdf-view split off to load when a PDF is first shown. pdf.js and signature_pad are not
// bundled: they are served as their packages ship them (web/pdf-view/assets.ts, web/wizard/router.ts), pdf.js's
// worker and decoders beside it. The result replaces the previous bundle at once, with the sources' fingerprint.
import fs from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { BUNDLE_DIR, PAGES, ROOT, STAMP_FILE, sourcesHash, type Page } from './page-bundle';

/** Imports that stay imports, of the files served beside the page's code. */
const SERVED_BESIDE: Record<string, string> = {
  'pdfjs-dist/legacy/build/pdf.mjs': './pdfjs/pdf.min.mjs',
  signature_pad: './signature_pad.js',
  './i18n': './i18n.js',
};

const servedBeside: esbuild.Plugin = {
  name: 'served-beside',
  setup(build) {
    build.onResolve({ filter: /^(pdfjs-dist\/legacy\/build\/pdf\.mjs|signature_pad|\.\/i18n)$/ }, (args) =>
      // A page's strings module (web/<page>/page/i18n.ts) stays apart; the kit's own i18n.ts is bundled.
      args.path === './i18n' && path.basename(path.dirname(args.importer)) !== 'page'
        ? undefined
        : { path: SERVED_BESIDE[args.path], external: true },
    );
  },
};

async function buildPage(page: Page, outdir: string): Promise<void> {
  const { entry, strings, also = [] } = PAGES[page];
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [entry, strings, ...also],
    outdir,
    bundle: true,
    splitting: true, // pdf-view, imported when first needed, becomes a module of its own
    format: 'esm',
    target: 'es2022', // what the pages were written in before (??=, class fields): no helpers to share
    minify: true,
    sourcemap: 'linked',
    legalComments: 'linked',
    chunkNames: '[name]-[hash]',
    plugins: [servedBeside],
    logLevel: 'warning',
  });
}

/** Builds every page into <dir>/<page>/ (dist/pages/ unless told), then swaps it in for the previous build. */
export async function buildPages(dir = BUNDLE_DIR): Promise<void> {
  const stamp = sourcesHash();
  const next = `${dir}.next-${process.pid}`;
  fs.rmSync(next, { recursive: true, force: true });
  for (const page of Object.keys(PAGES) as Page[]) await buildPage(page, path.join(next, page));
  fs.writeFileSync(path.join(next, STAMP_FILE), `${stamp}\n`);
  const old = `${dir}.old-${process.pid}`;
  if (fs.existsSync(dir)) fs.renameSync(dir, old);
  fs.renameSync(next, dir);
  fs.rmSync(old, { recursive: true, force: true });
}
