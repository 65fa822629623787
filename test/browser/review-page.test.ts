// The operator's review page in a real browser (Debian chromium driven by playwright-core): open the queue with
// the operator key, look at a submission, reject it with a reason, and see the party back in `processing`.
import crypto from 'node:crypto';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness';
import { b64, png } from '../support/images';
import { createWorkflow, jobWhen, setState, startJob, step } from '../support/jobs';
import { makeSiren, party } from '../support/fixtures';

let h: Harness;
let browser: Browser;
beforeAll(async () => {
  h = await startHarness();
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});
afterAll(async () => {
  await browser?.close();
  await h.close();
});

describe('operator review page', () => {
  it('shows the pending submission with its identity image and mandate, and sends the rejection', async () => {
    const entryId = crypto.randomUUID();
    await h.api('PUT', `/silo/v1/entries/${entryId}`, { data: party(makeSiren(), { name: 'Fromagerie Revue SARL' }) });
    const wf = await createWorkflow(h, [step('gov-fr.agreement.sign'), setState('processing'), step('gov-fr.agreement.wait.approval'), setState('completed')]);
    const jobId = await startJob(h, wf, entryId);
    await jobWhen(h, jobId, ['WAIT']);
    const e = `/apps/gov-fr/v1/entry/${entryId}`;
    await h.api('POST', `${e}/identity`, { view: 'page', data: b64(png(120, 80)) });
    await h.api('POST', `${e}/sign`, {});
    await h.api('POST', `${e}/confirm`);
    await expect.poll(async () => (await h.api('GET', `/silo/v1/entries/${entryId}`)).body.state, { timeout: 15_000 }).toBe('submitted');

    const page = await browser.newPage();
    const external: string[] = [];
    // Requests to any other web origin (the browser's own PDF viewer resources are not web requests).
    page.on('request', (r) => { if (/^https?:/.test(r.url()) && !r.url().startsWith(h.baseUrl)) external.push(r.url()); });
    await page.goto(`${h.baseUrl}/apps/gov-fr/review/`);
    await page.fill('#key', h.apiKey);
    await page.click('#login button');
    await page.getByRole('button', { name: /Fromagerie Revue SARL/ }).click();
    await expect.poll(() => page.locator('#images img').count()).toBe(1);
    expect(await page.locator('#images img').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(120);
    expect(await page.locator('#mandate').getAttribute('src')).toMatch(/^blob:/);

    await page.fill('#reason', 'La photo du passeport est floue');
    await page.click('#reject');
    await expect.poll(() => page.textContent('#outcome')).toBe('Refusé.');
    await expect.poll(async () => (await h.api('GET', `/silo/v1/entries/${entryId}`)).body.state, { timeout: 15_000 }).toBe('processing');
    expect((await h.api('GET', `/silo/v1/entries/${entryId}/meta/approval-decision`)).body.value.reason).toBe('La photo du passeport est floue');
    expect(external).toEqual([]);
    await page.close();
  });
});
