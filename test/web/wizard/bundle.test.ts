// A bundle's page in a real browser (Debian chromium driven by playwright-core) on a 360 px phone, as the signer of
// several companies of a campaign uses it: the details and the identity card once, then a company's mandate signed
// and submitted in its own wizard and back to the list; in French and in English, axe-core, no request elsewhere.
// Screenshots under test-artifacts/wizard/.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../bin/stack/chromium';
import { makeSiren } from '../../../bin/stack/sample-parties';
import { jpeg, png } from '../../../bin/stack/sample-images';
import { STRINGS } from '../../../web/wizard/page/i18n';
import { STRINGS as REVIEW_STRINGS } from '../../../web/review/page/i18n';
import { openReview, openSubmission, text } from '../../support/review-page';
import { seriousViolations } from '../../support/axe';
import { eventually, startHarness, type Harness } from '../../support/harness';

declare const document: any;

const ARTIFACTS = path.join(process.cwd(), 'test-artifacts', 'wizard');
const files = fs.mkdtempSync(path.join(os.tmpdir(), 'bundle-files-'));
const PHONE = 360;

let h: Harness;
let browser: Browser;
beforeAll(async () => {
  h = await startHarness({ env: { CAMPAIGN_ANNUAIRE_RPS: '500', CAMPAIGN_DNS_RPS: '500' } });
  browser = await launchChromium();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
  fs.rmSync(files, { recursive: true, force: true });
});

function file(name: string, bytes: Buffer): string {
  const p = path.join(files, name);
  fs.writeFileSync(p, bytes);
  return p;
}

/** A started campaign whose two companies have one signer; returns its bundle link once both mandates are issued. */
async function bundleLink(): Promise<string> {
  const header = 'siren;name;signer_given_name;signer_surname;signer_role;contact_email;signer_id_number';
  const body = [
    header,
    `${makeSiren()};Holding Martin;Élodie;Martin;Présidente;elodie@groupe-martin.fr;X4RTBPFW4`,
    `${makeSiren()};Martin Logistique;Élodie;Martin;Gérante;elodie@groupe-martin.fr;`,
  ].join('\n');
  const res = await fetch(`${h.baseUrl}/campaigns/v1/campaigns`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': 'text/csv' },
    body,
  });
  const id = ((await res.json()) as { id: string }).id;
  await eventually(async () => (await h.api('GET', `/campaigns/v1/campaigns/${id}`)).body.status === 'checked', 30_000);
  expect((await h.api('POST', `/campaigns/v1/campaigns/${id}/start`)).body.status).toBe('running');
  return eventually(async () => {
    const csv = await fetch(`${h.baseUrl}/campaigns/v1/campaigns/${id}/links.csv`, {
      headers: { authorization: `Bearer ${h.apiKey}` },
    });
    const lines = (await csv.text()).trim().split('\r\n').slice(1);
    const ready = lines.length === 2 && lines.every((l) => /\/reg\/[^/,]+\/start,http/.test(l));
    // The link as WIZARD_URL makes it, on this test's server.
    return ready ? `${h.baseUrl}${new URL(lines[0]!.split(',').at(-1)!).pathname}` : undefined;
  }, 30_000);
}

/** Opens a page that records any request leaving our origin, and any script error. */
async function open(url: string): Promise<{ page: Page; external: string[] }> {
  const context = await browser.newContext({ viewport: { width: PHONE, height: 800 } });
  const page = await context.newPage();
  const external: string[] = [];
  page.on('request', (r) => {
    if (/^https?:/.test(r.url()) && !r.url().startsWith(h.baseUrl)) external.push(r.url());
  });
  page.on('pageerror', (e) => external.push(`script error: ${e.message}`));
  await page.goto(url);
  await page.locator('main[aria-busy="false"]').waitFor();
  return { page, external };
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
const fitsThePhone = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth as number);
const badges = (page: Page) => page.locator('#companies .badge').allTextContents();

describe('a bundle’s page on a 360 px phone', () => {
  it('takes the details and the ID card once, then each company is signed in its own wizard and back', async () => {
    const fr = STRINGS.fr;
    const { page, external } = await open(await bundleLink());
    expect(await page.getAttribute('html', 'lang')).toBe('fr');
    expect(await page.textContent('#lead')).toBe(fr.bundleLead.replace('{n}', '2'));
    expect(await page.locator('#companies li strong').allTextContents()).toEqual([
      'Holding Martin',
      'Martin Logistique',
    ]);
    expect(await badges(page)).toEqual([fr.bundleStatus_toSign, fr.bundleStatus_toSign]);
    // Nothing to sign before the details and the identity document.
    expect(await page.textContent('#companies-hint')).toBe(fr.bundleFirst);
    expect(await page.locator('#companies a[aria-disabled="true"]').count()).toBe(2);
    expect(await fitsThePhone(page)).toBeLessThanOrEqual(PHONE);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'bundle-1-start-fr');

    // Martin Logistique's row had no ID number: asked once, for both.
    await page.getByRole('button', { name: fr.bundleConfirm }).click();
    expect(await page.textContent('#details-ok-error')).toBe(fr.mustConfirm);
    expect(await page.textContent('#id_number-error')).toBe(fr.required);
    await page.getByLabel(fr.idNumber).fill('X4RTBPFW4');
    await page.getByLabel(fr.bundleDetailsOk).check();
    await page.getByRole('button', { name: fr.bundleConfirm }).click();
    await page.locator('#details-done').waitFor();
    await page.setInputFiles('#file-front', file('front.png', png(200, 120)));
    await expect.poll(() => page.textContent('#front-status')).toBe(fr.received);
    await page.setInputFiles('#file-back', file('back.jpg', jpeg()));
    await expect.poll(() => page.textContent('#back-status')).toBe(fr.received);
    await expect.poll(() => page.textContent('#companies-hint')).toBe(fr.bundleSignEach.replace('{n}', '2'));
    expect(await page.locator('#companies a[aria-disabled="true"]').count()).toBe(0);
    expect(await fitsThePhone(page)).toBeLessThanOrEqual(PHONE);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'bundle-2-ready-fr');

    // The first company's own wizard opens at its mandate: the details and the identity card are given already.
    await page.locator('#companies li').first().getByRole('link', { name: fr.bundleReadSign }).click();
    await page.locator('main[aria-busy="false"]').waitFor();
    await expect.poll(() => page.locator('section.step:not([hidden]) h2').textContent()).toBe(fr.step3Title);
    expect(await page.isVisible('#bundle-back-top')).toBe(true);
    await page.getByLabel(fr.type).check();
    await page.getByLabel(fr.typeName).fill('Élodie Martin');
    await page.getByLabel(fr.signConsent).check();
    await page.getByRole('button', { name: fr.signButton }).click();
    await expect
      .poll(() => page.locator('section.step:not([hidden]) h2').textContent(), { timeout: 15_000 })
      .toBe(fr.step4Title);
    await page.getByRole('button', { name: fr.submit }).click();
    await expect.poll(() => page.locator('section.step:not([hidden]) h2').textContent()).toBe(fr.doneTitle);
    await shot(page, 'bundle-3-company-submitted-fr');
    await page.locator('#bundle-back-done a').click();
    await page.locator('main[aria-busy="false"]').waitFor();
    await expect.poll(() => badges(page)).toEqual([fr.bundleStatus_submitted, fr.bundleStatus_toSign]);
    expect(await page.textContent('#companies-hint')).toBe(fr.bundleSignEach.replace('{n}', '1'));

    // In English, every text of the page.
    const en = STRINGS.en;
    await page.getByRole('button', { name: fr.switchTo }).click();
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await page.textContent('h1')).toBe(en.bundleTitle);
    expect(await page.textContent('#lead')).toBe(en.bundleLead.replace('{n}', '2'));
    expect(await badges(page)).toEqual([en.bundleStatus_submitted, en.bundleStatus_toSign]);
    expect(await page.getByRole('link', { name: en.bundleReadSign }).count()).toBe(1);
    expect(await page.textContent('#details-done')).toBe(en.bundleDetailsDone);
    expect(await fitsThePhone(page)).toBeLessThanOrEqual(PHONE);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'bundle-4-one-submitted-en');
    expect(external).toEqual([]);
    await page.context().close();

    // The operator, opening that submission, sees it was signed with the signer's other company.
    const review = await openReview(browser, h.baseUrl, h.operator);
    await openSubmission(review.page, 'Holding Martin');
    await review.page.locator('#bundle:not([hidden])').waitFor();
    const rs = REVIEW_STRINGS.fr;
    expect(await text(review.page, '#bundle-heading')).toBe(rs.bundleHeading);
    expect(await review.page.locator('#bundle-list li').allTextContents()).toEqual([
      expect.stringMatching(/^Holding Martin — SIREN \d{9} : envoyé, à décider \(ce dossier\)$/),
      expect.stringMatching(/^Martin Logistique — SIREN \d{9} : pas encore envoyé$/),
    ]);
    expect(await seriousViolations(review.page)).toEqual([]);
    await review.page.screenshot({ path: path.join(ARTIFACTS, 'bundle-5-review-fr.png'), fullPage: true });
    expect([...review.external, ...review.problems]).toEqual([]);
    await review.page.close();
  }, 120_000);

  it('shows a clear page for an unknown bundle link', async () => {
    const context = await browser.newContext({ viewport: { width: PHONE, height: 800 } });
    const page = await context.newPage();
    const res = await page.goto(`${h.baseUrl}/reg/bundle/${'B'.repeat(43)}/start`);
    expect(res?.status()).toBe(404);
    expect(await page.textContent('h1')).toBeTruthy();
    await context.close();
  });
});
