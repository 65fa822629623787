// The pages' scripts: built from the sources by esbuild, and taken by the routers only when they are there and were
// built from the sources as they are now (a missing build would be a 404 in the browser, a stale one old code).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPages } from '../../web/page-build';
import { PAGES, STAMP_FILE, pageBundle, type Page } from '../../web/page-bundle';

const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pages-')), 'pages');
beforeAll(() => buildPages(dir));
afterAll(() => fs.rmSync(path.dirname(dir), { recursive: true, force: true }));

describe('the pages’ scripts', () => {
  it('are one module a page, its strings apart, pdf-view split off; pdf.js and signature_pad stay imports', () => {
    for (const page of Object.keys(PAGES) as Page[]) {
      const out = pageBundle(page, dir);
      const files = fs.readdirSync(out).filter((f) => f.endsWith('.js'));
      // A page's other entries (the wizard's bundle page) share the kit with it in one chunk.
      const others = (PAGES[page].also ?? []).map((f) => `${path.basename(f, '.ts')}.js`);
      expect(files).toHaveLength(3 + (others.length ? others.length + 1 : 0));
      expect(files).toEqual(
        expect.arrayContaining([
          `${page}.js`,
          ...others,
          'i18n.js',
          expect.stringMatching(/^pdf-view-\w+\.js$/),
          ...(others.length ? [expect.stringMatching(/^chunk-\w+\.js$/)] : []),
        ]),
      );
      const entry = fs.readFileSync(path.join(out, `${page}.js`), 'utf8');
      expect(entry).toContain('from"./i18n.js"');
      expect(entry).toMatch(/import\("\.\/pdf-view-\w+\.js"\)/);
      const viewFile = files.find((f) => f.startsWith('pdf-view'))!;
      const view = fs.readFileSync(path.join(out, viewFile), 'utf8');
      expect(view).toContain('from"./pdfjs/pdf.min.mjs"');
    }
    expect(fs.readFileSync(path.join(dir, 'wizard/wizard.js'), 'utf8')).toContain('from"./signature_pad.js"');
  });

  it('are refused, saying what to run, when they were built from other sources or not built', () => {
    fs.writeFileSync(path.join(dir, STAMP_FILE), 'another build\n');
    expect(() => pageBundle('wizard', dir)).toThrow(/built from other sources than these: run `npm run build:pages`/);
    fs.rmSync(path.join(dir, 'review'), { recursive: true });
    expect(() => pageBundle('review', dir)).toThrow(/review page's scripts are not built .*npm run build:pages/);
  });
});
