// The review page with the director check and the decision policy's automatic approvals, in a real browser: the
// queue filters on the signer being a director and lists the automatic approvals still open to overturn; the detail
// says what the public register and the certificate said; an operator overturns an automatic approval by rejecting it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/harness';
import { director, SIGNER, submittedFor } from '../../support/checked-submission';
import { testCa } from '../../../bin/stack/signing-ca';
import { launchChromium, openReview, openSubmission, seriousViolations, text } from '../../support/review-page';

const ca = testCa();
let h: Harness;
let browser: Browser;
let operator: string;
beforeAll(async () => {
  const policy = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'policy-')), 'policy.json');
  fs.writeFileSync(
    policy,
    JSON.stringify({
      version: 3,
      second_approval: ['takeover', 'scan', 'name-mismatch', 'not-active'],
      overturn_window: '10m',
      auto_approve: [{ rule: 'director-certificate', when: ['certificate-names-director', 'company-active'] }],
    }),
  );
  h = await startHarness({ env: { DECISION_POLICY_FILE: policy, SIGNATURE_TRUST_ANCHORS_FILE: ca.file } });
  operator = await h.newOperator(['decide']);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

describe('the review page', () => {
  it('filters on the signer not being a director, and says why on the card and in the detail (fr, 360 px)', async () => {
    const s = await submittedFor(h, [director('Paul', 'DURAND', 'Président')], 'in-app');
    const { page, problems, external } = await openReview(browser, h.baseUrl, operator, undefined, 360);
    await page.selectOption('#f-signer', 'fail');
    const card = page.getByRole('button', { name: new RegExp(`SIREN ${s.siren}`) });
    await expect.poll(() => card.textContent(), { timeout: 15_000 }).toContain('signataire ≠ dirigeant');
    await openSubmission(page, `SIREN ${s.siren}`);
    await expect
      .poll(() => text(page, '#signer-check'))
      .toBe(
        'Pas parmi les dirigeants que liste le registre public (API Recherche d’entreprises). Le registre public liste : Paul DURAND (Président). Dirigeants sur l’Annuaire des entreprises',
      );
    expect(await page.isHidden('#certificate')).toBe(true);
    await page.screenshot({ path: path.join(os.tmpdir(), 'review-signer-fail-360.png'), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    expect([...problems, ...external]).toEqual([]);
  });

  it('lists an automatic approval still open to overturn; the operator overturns it by rejecting (en)', async () => {
    const s = await submittedFor(h, [director('Élodie', "N'Guessan-Dupré")], { key: ca.issue(SIGNER) });
    const { page, problems } = await openReview(browser, h.baseUrl, operator, 'en');
    await page.check('#f-automatic');
    const card = page.getByRole('button', { name: new RegExp(`SIREN ${s.siren}`) });
    await expect
      .poll(() => card.textContent(), { timeout: 15_000 })
      .toContain('approved automatically (director-certificate)');
    await openSubmission(page, `SIREN ${s.siren}`);
    await expect
      .poll(() => text(page, '#automatic'))
      .toMatch(
        /^Approved automatically on .+ by the policy's rule “director-certificate” \(version 3\): (a trusted certificate naming the signer, a director|the company active), (a trusted certificate naming the signer, a director|the company active)\. The registration runs on at .+; you may reject it until .+\.$/,
      );
    expect(await text(page, '#signer-check')).toBe(
      "Among the directors in the public register: Élodie N'Guessan-Dupré, Présidente.",
    );
    expect(await text(page, '#certificate')).toBe(
      "Certificate in the name of Élodie N'Guessan-Dupré, issued by CN=Test Qualified CA, O=Tests only, C=FR: trusted by the platform.",
    );
    await expect.poll(() => page.isEnabled('#reject'), { timeout: 20_000 }).toBe(true);
    expect(await page.isDisabled('#approve')).toBe(true);
    await page.screenshot({ path: path.join(os.tmpdir(), 'review-automatic-en.png'), fullPage: true });
    await page.fill('#reason', 'The signer says she did not sign');
    await page.click('#reject');
    await expect.poll(() => text(page, '#outcome')).toMatch(/rejected/i);
    const shown = (await h.api('GET', `/apps/gov-fr/v1/review/submissions/${s.entryId}`)).body;
    expect(shown.decision).toMatchObject({ decision: 'rejected', reason: 'The signer says she did not sign' });
    expect(shown.decision.overturns).toEqual(shown.decisions[1].id);
    expect(problems).toEqual([]);
  });
});
