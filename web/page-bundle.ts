// Where the pages' bundled scripts are (built from web/*/page/ and web/page-kit/ by bin/build-pages.ts, which
// scripts/setup.sh runs), and the check that they are there and were built from the sources as they are now: a
// router refuses to start rather than serve a missing page (a 404 in the browser) or a stale one.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Git-ignored; one folder a page, served as that page's assets. */
export const BUNDLE_DIR = path.join(ROOT, 'dist/pages');
/** In a bundle's folder: the sources' fingerprint it was built from. */
export const STAMP_FILE = 'sources.sha256';

/** Each page: its entry module, and the strings module it keeps apart (loaded as `./i18n.js` beside it). */
export const PAGES: Record<'wizard' | 'review', { entry: string; strings: string; also?: string[] }> = {
  // A bundle's page (one signer's companies) shares the wizard's assets and strings.
  wizard: {
    entry: 'web/wizard/page/wizard.ts',
    strings: 'web/wizard/page/i18n.ts',
    also: ['web/wizard/page/bundle.ts'],
  },
  review: { entry: 'web/review/page/review.ts', strings: 'web/review/page/i18n.ts' },
};
export type Page = keyof typeof PAGES;

// What a bundle is made of: the pages' code and the locked packages (openapi-fetch) bundled in.
const SOURCE_DIRS = ['web/page-kit', 'web/wizard/page', 'web/review/page'];
const LOCKFILE = 'package-lock.json';

const filesUnder = (dir: string): string[] =>
  fs
    .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? filesUnder(path.join(dir, d.name)) : [path.join(dir, d.name)]));

/** A fingerprint of every file the bundles are built from, names and contents. */
export function sourcesHash(): string {
  const hash = crypto.createHash('sha256');
  for (const file of [...SOURCE_DIRS.flatMap(filesUnder), LOCKFILE].sort())
    hash
      .update(`${file}\0`)
      .update(fs.readFileSync(path.join(ROOT, file)))
      .update('\0');
  return hash.digest('hex');
}

/** The folder of a page's bundle; throws, saying what to run, when it is missing or older than its sources. */
export function pageBundle(page: Page, bundleDir = BUNDLE_DIR): string {
  const dir = path.join(bundleDir, page);
  const fix = 'run `npm run build:pages` (scripts/setup.sh does)';
  if (!fs.existsSync(path.join(dir, path.basename(PAGES[page].entry, '.ts') + '.js')))
    throw new Error(`the ${page} page's scripts are not built (${path.relative(ROOT, dir)}): ${fix}`);
  const stamp = path.join(bundleDir, STAMP_FILE);
  const built = fs.existsSync(stamp) ? fs.readFileSync(stamp, 'utf8').trim() : '';
  if (built !== sourcesHash())
    throw new Error(`the ${page} page's scripts were built from other sources than these: ${fix}`);
  return dir;
}
