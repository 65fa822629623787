// The review page's queue at volume, in a real browser: a few hundred submissions across workspaces, a page at a
// time with the total, the filters and the search the API offers, each card with the checks recorded when it was
// submitted; and after a decision, the next submission opens.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/harness';
import { submittedEntry } from '../../support/review-submission';
import { launchChromium, openReview, openSubmission, seriousViolations, text } from '../../support/review-page';
import { seedReviewQueue, seededFacts, type SeededSubmission } from '../../../bin/stack/review-queue-fixture';
import { createWorkspace } from '../../../platform/store/workspaces';
import { DEFAULT_POLICY_FILE } from '../../../domain/review/decision-policy';

const SEEDED = 300;
let h: Harness;
let browser: Browser;
let operator: string;
let seeded: SeededSubmission[];
let alpha: { id: string };

beforeAll(async () => {
  h = await startHarness({ env: { DECISION_POLICY_FILE: DEFAULT_POLICY_FILE } }); // the platform's default policy
  operator = await h.newOperator(['decide']);
  alpha = await createWorkspace(h.db, 'Cabinet Alpha');
  const beta = await createWorkspace(h.db, 'Logiciel Bêta');
  seeded = await seedReviewQueue(h.db, { count: SEEDED, workspaces: [alpha, beta] });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

/** How many of the seeded match, by their index. */
const seededWhere = (f: (i: number) => boolean) => seeded.filter((_, i) => f(i)).length;
const status = (page: Parameters<typeof text>[0]) => text(page, '#status');

describe('the queue at volume (360 px)', () => {
  it('shows a page with the total, the next on demand, and filters, searches and orders as asked', async () => {
    const { page, problems, external } = await openReview(browser, h.baseUrl, operator, undefined, 360);
    await expect.poll(() => status(page)).toBe(`50 affichée(s) sur ${SEEDED} soumission(s) à examiner`);
    expect(await page.locator('#queue li').count()).toBe(50);
    await page.click('#more');
    await expect.poll(() => status(page)).toBe(`100 affichée(s) sur ${SEEDED} soumission(s) à examiner`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    expect(await seriousViolations(page)).toEqual([]);

    // One integrator's: the select lists each with its pending count.
    expect(await page.locator('#f-workspace option').allTextContents()).toEqual([
      'Tous',
      `Cabinet Alpha (${SEEDED / 2})`,
      `Logiciel Bêta (${SEEDED / 2})`,
    ]);
    await page.selectOption('#f-workspace', alpha.id);
    await expect.poll(() => status(page)).toBe(`50 affichée(s) sur ${SEEDED / 2} soumission(s) à examiner`);

    // Take-overs of Cabinet Alpha's, each card saying so.
    await page.selectOption('#f-kind', 'takeover');
    const takeovers = seededWhere((i) => i % 2 === 0 && seededFacts(i).purpose === 'takeover');
    await expect.poll(() => status(page)).toBe(`${takeovers} affichée(s) sur ${takeovers} soumission(s) à examiner`);
    for (const badges of await page.locator('#queue li').evaluateAll((lis) => lis.map((li) => li.textContent)))
      expect(badges).toContain('Reprise d’une autre plateforme');

    // Scans whose name differs from the Annuaire's, in every workspace.
    await page.selectOption('#f-kind', '');
    await page.selectOption('#f-workspace', '');
    await page.selectOption('#f-evidence', 'scan');
    await page.check('#f-mismatch');
    const scansMismatched = seededWhere((i) => seededFacts(i).evidence === 'scan' && !seededFacts(i).nameMatches);
    await expect
      .poll(() => status(page))
      .toBe(`${scansMismatched} affichée(s) sur ${scansMismatched} soumission(s) à examiner`);
    await page.uncheck('#f-mismatch');
    await page.selectOption('#f-evidence', '');

    // A SIREN typed in the search: its one card.
    const wanted = seeded[123]!;
    await page.fill('#f-q', wanted.siren);
    await expect.poll(() => status(page)).toBe('1 affichée(s) sur 1 soumission(s) à examiner');
    expect(await text(page, '#queue li')).toContain(wanted.name);
    await page.fill('#f-q', '');

    // The nearest deadline first: the seeded one due first (deadline days after it was submitted, 10 min apart).
    await page.selectOption('#f-order', 'urgent');
    const due = seeded
      .map((s, i) => ({ s, at: (i - SEEDED) * 600_000 + seededFacts(i).deadlineDays * 86_400_000 }))
      .sort((a, b) => a.at - b.at)[0]!.s;
    await expect.poll(() => text(page, '#queue li:first-child')).toContain(due.name);
    expect(problems).toEqual([]);
    expect(external).toEqual([]);
    await page.close();
  });
});

describe('after a decision, and four eyes', () => {
  it('opens the next submission; a first approval waits for another operator, whose approval decides', async () => {
    // Made-up companies the Annuaire does not know: the default policy asks for two approvals (not active).
    const first = await submittedEntry(h, { name: 'Épicerie Une SARL' });
    await submittedEntry(h, { name: 'Épicerie Deux SARL' });
    const { page } = await openReview(browser, h.baseUrl, operator);
    await page.fill('#f-q', 'Épicerie');
    await expect.poll(() => status(page)).toBe('2 affichée(s) sur 2 soumission(s) à examiner');
    await openSubmission(page, 'Épicerie Une SARL');
    await expect
      .poll(() => text(page, '#four-eyes'))
      .toBe(
        'Quatre yeux (entreprise non active selon l’Annuaire) : cette soumission demande deux approbations, par deux opérateurs différents.',
      );
    await expect.poll(() => page.isEnabled('#approve'), { timeout: 20_000 }).toBe(true);
    await page.click('#approve');
    await expect
      .poll(() => text(page, '#decided'))
      .toBe('Première approbation enregistrée pour Épicerie Une SARL : un autre opérateur doit approuver à son tour.');
    // The next one opened; the first stays listed, awaiting a second approval.
    await expect.poll(() => text(page, '#title')).toMatch(/^Épicerie Deux SARL — mandat /);
    await expect.poll(() => status(page)).toBe('2 affichée(s) sur 2 soumission(s) à examiner');
    // Its card says it is this operator's first approval: the next card after a decision passes it over.
    expect(await text(page, '#queue li:first-child')).toContain('Votre 1re approbation : à un autre opérateur');
    // Back on it, this operator can only reject.
    await openSubmission(page, 'Épicerie Une SARL');
    await expect.poll(() => text(page, '#four-eyes')).toMatch(/première approbation par Test operator le /);
    await expect.poll(() => page.isEnabled('#reject'), { timeout: 20_000 }).toBe(true);
    expect(await page.isDisabled('#approve')).toBe(true);
    expect(await text(page, '#outcome')).toMatch(/^Vous avez donné la première approbation/);
    await page.close();

    // Another operator's approval decides.
    const other = await openReview(browser, h.baseUrl, h.secondOperator);
    await other.page.fill('#f-q', 'Épicerie Une');
    await expect.poll(() => status(other.page)).toBe('1 affichée(s) sur 1 soumission(s) à examiner');
    expect(await text(other.page, '#queue li:first-child')).toContain('2e approbation attendue (1re : Test operator)');
    await openSubmission(other.page, 'Épicerie Une SARL');
    await expect.poll(() => other.page.isEnabled('#approve'), { timeout: 20_000 }).toBe(true);
    await other.page.click('#approve');
    await expect
      .poll(() => text(other.page, '#decided'))
      .toBe('Décision enregistrée (approuvée) pour Épicerie Une SARL.');
    const decided = await h.api('GET', `/apps/gov-fr/v1/review/submissions/${first.entryId}`);
    expect(decided.body.decision).toMatchObject({ decision: 'approved', decided_by: { name: 'Test operator B' } });
    await other.page.close();
  });
});

// Code passed to page.evaluate runs in the browser.
declare const document: { documentElement: { scrollWidth: number } };
