// The operators' review page in a real browser (Debian chromium driven by playwright-core): launching it, signing in
// with a credential, reading the page, and axe-core's serious findings. Shared by the review page's browser tests.
import type { Browser, Page } from 'playwright-core';

export { launchChromium } from '../../bin/stack/chromium';
export { seriousViolations } from './axe';

export interface Watched {
  page: Page;
  /** Requests to any other origin, CSP violations and page errors: each should stay empty. */
  external: string[];
  problems: string[];
  dialogs: string[];
}

/** The review page at `baseUrl`, signed in with `credential`, its requests, errors and dialogs watched. */
export async function openReview(
  browser: Browser,
  baseUrl: string,
  credential: string,
  lang?: 'en',
  width = 1280,
): Promise<Watched> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const w: Watched = { page, external: [], problems: [], dialogs: [] };
  page.on('request', (r) => {
    if (/^https?:/.test(r.url()) && !r.url().startsWith(baseUrl)) w.external.push(r.url());
  });
  page.on('console', (m) => {
    if (m.type() === 'error') w.problems.push(`${m.text()} ${m.location().url}`);
  });
  page.on('pageerror', (e) => w.problems.push(e.message));
  page.on('dialog', (d) => {
    w.dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(`${baseUrl}/apps/gov-fr/review/${lang ? `?lang=${lang}` : ''}`);
  await page.fill('#credential', credential);
  await page.click('#login button');
  return w;
}

export const openSubmission = (page: Page, name: string) =>
  page.getByRole('button', { name: new RegExp(name) }).click();
export const text = async (page: Page, sel: string) => ((await page.textContent(sel)) ?? '').trim();
