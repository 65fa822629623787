// The operators' review page in a real browser (Debian chromium driven by playwright-core), signed in as an operator
// with the `decide` role only: everything a decision rests on is on screen (party, signer, identity image, the signed
// mandate drawn by pdf.js, the Annuaire's record for the SIREN), what cannot be shown is said in words, the buttons
// open only once the documents are shown and close once a decision is recorded, and a PDF's script never runs.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { PDFDocument, PDFName, PDFString, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/harness';
import { submittedEntry, type Submission } from '../../support/review-submission';
import { newParty, register, renewalAwaitingSigner, signInApp, startRegistration } from '../../support/registration';
import { jobWhen } from '../../support/jobs';
import {
  launchChromium,
  openReview as openReviewAt,
  openSubmission,
  seriousViolations,
  text,
} from '../../support/review-page';

// Code passed to page.evaluate runs in the browser.
declare const document: any;
type Canvas = {
  width: number;
  height: number;
  getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
};

let h: Harness;
let browser: Browser;
let operator: string;
beforeAll(async () => {
  h = await startHarness();
  operator = await h.newOperator(['decide']); // deciding needs nothing more
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

const openReview = (credential: string, lang?: 'en', width = 1280) =>
  openReviewAt(browser, h.baseUrl, credential, lang, width);

/** Share of the canvases' pixels that are not white: a drawn page has text on it. */
const inkOnCanvases = (page: Page) =>
  page.$$eval('#mandate canvas', (canvases) => {
    let ink = 0;
    let total = 0;
    for (const c of canvases as unknown as Canvas[]) {
      const { data } = c.getContext('2d')!.getImageData(0, 0, c.width, c.height);
      for (let i = 0; i < data.length; i += 4) {
        total++;
        if (data[i]! < 200 || data[i + 1]! < 200 || data[i + 2]! < 200) ink++;
      }
    }
    return total ? ink / total : 0;
  });

describe('operator review page (an operator who decides)', () => {
  let first: Submission;
  beforeAll(async () => {
    first = await submittedEntry(h, { name: 'Fromagerie Revue SARL' });
    h.sims.annuaire.seedCompany({ siren: first.siren, raisonSociale: 'FROMAGERIE REVUE', etatAdministratif: 'A' });
  });

  it('shows party, signer, identity image, the mandate drawn and the Annuaire record, then records the rejection (fr)', async () => {
    const { page, external, problems, dialogs } = await openReview(operator);
    // Hold the mandate back: until it is on screen, no decision can be made.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/mandate', async (route) => {
      await held;
      await route.continue();
    });
    await openSubmission(page, 'Fromagerie Revue SARL');
    await expect.poll(() => text(page, '#party-name')).toBe('Fromagerie Revue SARL');
    expect(await text(page, '#party-siren')).toBe(first.siren);
    expect(await text(page, '#party-address')).toBe('12 rue de la Paix 75002 Paris');
    expect(await text(page, '#signer-name')).toBe("Élodie N'Guessan-Dupré");
    expect(await text(page, '#signer-role')).toBe('Présidente');
    expect(await text(page, '#signer-id-number')).toBe('X4RTBPFW4'); // the number declared, beside the document's images
    await page.screenshot({ path: 'test-artifacts/review-detail.png', fullPage: true });
    expect(await text(page, '#dir-name')).toBe('FROMAGERIE REVUE');
    expect(await text(page, '#dir-siren')).toBe(first.siren);
    expect(await text(page, '#dir-status')).toBe('Active');
    expect(await text(page, '#dir-type')).toBe('Privée assujettie');
    expect(await text(page, '#directory-message')).toBe(''); // the same name, as the directory writes it: no warning
    expect(await page.isHidden('#history')).toBe(true); // a first submission: no decision before it
    expect(await text(page, '#evidence')).toBe('Mandat signé dans l’application (signature saisie).');
    await expect.poll(() => page.locator('#images img').count()).toBe(1);
    expect(await page.locator('#images figcaption span').allTextContents()).toEqual([
      'page du passeport',
      expect.stringMatching(/^déposée le \d/),
    ]);
    expect(await page.locator('#mandate-message').textContent()).toBe('Affichage du mandat…');
    expect(await page.isDisabled('#approve')).toBe(true);
    expect(await page.isDisabled('#reject')).toBe(true);
    release();

    await expect.poll(() => page.isEnabled('#approve'), { timeout: 20_000 }).toBe(true);
    expect(await page.isEnabled('#reject')).toBe(true);
    expect(await text(page, '#mandate-message')).toMatch(/^Mandat affiché \(\d page\(s\)\)\.$/);
    expect(await page.locator('#mandate canvas').count()).toBeGreaterThanOrEqual(1);
    expect(await inkOnCanvases(page)).toBeGreaterThan(0.005);
    expect(
      await page.locator('#images img').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
    ).toBe(120);
    expect(await page.locator('iframe, embed, object').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);

    // A rejection needs its reason; then it is recorded and the buttons close.
    await page.click('#reject');
    expect(await text(page, '#outcome')).toBe('Indiquez le motif du refus : il est transmis au signataire.');
    await page.fill('#reason', 'La photo du passeport est floue');
    await page.click('#reject');
    await expect.poll(() => text(page, '#outcome')).toMatch(/^Décision enregistrée : refusée le /);
    expect(await page.isDisabled('#approve')).toBe(true);
    expect(await page.isDisabled('#reject')).toBe(true);
    await expect.poll(() => text(page, '#status')).toBe('Aucune soumission en attente'); // the queue, loaded again
    await expect
      .poll(async () => (await h.api('GET', `/silo/v1/entries/${first.entryId}`)).body.state, { timeout: 15_000 })
      .toBe('processing');
    expect((await h.api('GET', `/silo/v1/entries/${first.entryId}/meta/approval-decision`)).body.value.reason).toBe(
      'La photo du passeport est floue',
    );
    expect({ external, problems, dialogs }).toEqual({ external: [], problems: [], dialogs: [] });
    await page.close();
  });

  it('shows the earlier rejection and its reason on the new submission, and whether the identity image was replaced (en, 360 px)', async () => {
    // The signer signs again and submits, keeping the passport image that was rejected.
    const e = `/apps/gov-fr/v1/entry/${first.entryId}`;
    expect((await h.api('POST', `${e}/sign`, {})).status).toBe(204);
    expect((await h.api('POST', `${e}/confirm`)).status).toBe(200);
    await expect
      .poll(async () => (await h.api('GET', `/silo/v1/entries/${first.entryId}`)).body.state, { timeout: 15_000 })
      .toBe('submitted');

    const { page, problems, external } = await openReview(operator, 'en', 360);
    await openSubmission(page, 'Fromagerie Revue SARL');
    await expect.poll(() => page.isEnabled('#approve'), { timeout: 20_000 }).toBe(true);
    expect(await text(page, '#history-heading')).toBe('Decisions already made on this registration');
    expect(await page.locator('#history-list li').allTextContents()).toEqual([
      expect.stringMatching(/^Rejected on .+ by Test operator — reason: “La photo du passeport est floue”$/),
    ]);
    const caption = () => page.locator('#images figcaption span').allTextContents();
    expect(await caption()).toEqual([
      'passport page',
      expect.stringMatching(/^uploaded /),
      expect.stringMatching(/^not replaced since the rejection of /),
    ]);
    expect(await text(page, '#dir-type')).toBe('Private, liable to VAT'); // the Annuaire's value, translated

    // The mandate's pages at a readable size: the frame scrolls, the page does not.
    expect(await page.getAttribute('#zoom button[data-zoom="1"]', 'aria-pressed')).toBe('true');
    const canvasWidth = () =>
      page.locator('#mandate canvas >> nth=0').evaluate((c) => (c as unknown as { clientWidth: number }).clientWidth);
    const fit = await canvasWidth();
    expect(fit).toBeLessThan(340);
    await page.getByRole('button', { name: '200%' }).click();
    expect(await page.getAttribute('#zoom button[data-zoom="2"]', 'aria-pressed')).toBe('true');
    expect(await canvasWidth()).toBeGreaterThan(fit * 1.9);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    expect(
      await page.$eval(
        '#mandate',
        (el) =>
          (el as unknown as { scrollWidth: number; clientWidth: number }).scrollWidth >
          (el as unknown as { clientWidth: number }).clientWidth,
      ),
    ).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);

    // The switch translates the history and the captions too.
    await page.click('#lang-switch');
    expect(await page.locator('#history-list li').allTextContents()).toEqual([
      expect.stringMatching(/^Refusée le .+ — motif : « La photo du passeport est floue »$/),
    ]);
    expect((await caption())[2]).toMatch(/^non remplacée depuis le refus du /);
    expect(await text(page, '#dir-type')).toBe('Privée assujettie');

    await page.click('#approve');
    await expect.poll(() => text(page, '#outcome')).toMatch(/^Décision enregistrée : approuvée le /);
    expect({ problems, external }).toEqual({ problems: [], external: [] });
    await page.close();
  });

  it('in English: says the Annuaire has no record, and shows a decision refused because it was made elsewhere (409)', async () => {
    const sub = await submittedEntry(h, { name: 'Brasserie Ailleurs SAS' }); // no Annuaire company for its SIREN
    const { page, problems } = await openReview(operator, 'en');
    await openSubmission(page, 'Brasserie Ailleurs SAS');
    await expect.poll(() => page.isEnabled('#approve'), { timeout: 20_000 }).toBe(true);
    expect(await text(page, '#approve')).toBe('Approve');
    expect(await text(page, '.columns h3 >> nth=0')).toBe('Declared company');
    expect(await text(page, '#directory-message')).toBe(
      `The PPF Annuaire has no company with SIREN ${sub.siren}: check the declared SIREN.`,
    );
    expect(await page.isHidden('#directory-record')).toBe(true);
    expect(await text(page, '#evidence')).toBe('Mandate signed in the app (typed signature).');
    expect(await text(page, '#mandate-message')).toMatch(/^Mandate shown \(\d page\(s\)\)\.$/);

    // Another operator decides meanwhile.
    expect((await h.api('POST', `/apps/gov-fr/v1/entry/${sub.entryId}/decision`, { approved: true })).status).toBe(200);
    await page.click('#approve');
    // The page's own sentence, once: the API's (English) detail says nothing more.
    const refused =
      'Your decision was not recorded: the submission has been decided elsewhere already, or the registration no longer awaits a decision.';
    await expect.poll(() => text(page, '#outcome')).toBe(refused);
    expect(await page.isDisabled('#approve')).toBe(true);
    expect(await page.isDisabled('#reject')).toBe(true);
    // Decided elsewhere: the queue, loaded again, no longer lists it.
    await expect.poll(() => page.locator('#queue li:has-text("Brasserie Ailleurs SAS")').count()).toBe(0);
    // The switch translates what is on screen, messages included.
    await page.click('#lang-switch');
    expect(await text(page, '#outcome')).toBe(
      'Votre décision n’a pas été enregistrée : la soumission a déjà été décidée ailleurs, ou l’inscription n’attend plus de décision.',
    );
    expect(await text(page, '#approve')).toBe('Approuver');
    // The browser logs the refused request itself; nothing else went wrong.
    expect(problems.filter((p) => !/status of 409 .*\/decision$/.test(p))).toEqual([]);
    await page.close();
  });

  it('says so when the Annuaire fails or an image cannot be shown, then allows only a rejection; flags a scan (360 px)', async () => {
    const sub = await submittedEntry(h, { name: 'Laiterie Panne SARL', party: { addresses: undefined } });
    // An identity "image" stored before the upload checks: bytes no browser can decode.
    await h.db.query('UPDATE identity_documents SET data = $3 WHERE entry_id = $1 AND view = $2', [
      sub.entryId,
      'page',
      h.box.seal(Buffer.from('\x89PNG\r\n\x1a\n<html>not an image</html>', 'latin1'), `identity:${sub.entryId}:page`),
    ]);
    // As the upload checks flag an image-only PDF: the operator must check the number and the signature by eye.
    await h.db.query("UPDATE mandates SET upload_evidence = 'scan' WHERE entry_id = $1", [sub.entryId]);
    await h.db.query("UPDATE submission_checks SET evidence = 'scan' WHERE entry_id = $1", [sub.entryId]);
    h.sims.annuaire.setFaults({ status: 503, only: 'GET /siren/code-insee:*' });
    try {
      const { page } = await openReview(operator, undefined, 360);
      const card = page.locator('#queue li', { hasText: 'Laiterie Panne SARL' });
      await expect.poll(() => card.locator('.badge').allTextContents()).toContain('Scan');
      await openSubmission(page, 'Laiterie Panne SARL');
      await expect.poll(() => page.isEnabled('#reject'), { timeout: 20_000 }).toBe(true);
      expect(await text(page, '#directory-message')).toBe(
        'L’Annuaire PPF est indisponible : sa fiche ne peut pas être affichée pour l’instant. Réessayez plus tard.',
      );
      expect(await text(page, '#party-address')).toBe('non renseignée'); // « Adresse », feminine
      expect(await text(page, '#image-messages')).toBe(
        'L’image « page du passeport » ne peut pas être affichée : le fichier n’est pas une image lisible',
      );
      expect(await page.isDisabled('#approve')).toBe(true);
      expect(await text(page, '#outcome')).toBe(
        'Approbation impossible : un document ne peut pas être affiché (voir ci-dessus). Vous pouvez refuser en indiquant le motif.',
      );
      const number = (await h.api('GET', `/apps/gov-fr/v1/review/submissions/${sub.entryId}`)).body.mandate_number;
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      expect(await seriousViolations(page)).toEqual([]);
      expect(await text(page, '#evidence')).toBe(
        `Mandat scanné (image) : vérifiez à l’œil le numéro du mandat (${number}) et la signature avant d’approuver.`,
      );
      await page.close();
    } finally {
      h.sims.annuaire.setFaults(undefined);
    }
  });

  it('says when a submission is an address update: the mandate it replaces and the addresses it adds (en, 360 px)', async () => {
    const name = 'Renouvellement Adresses SAS';
    const { entryId: id, siren, inForce } = await renewalAwaitingSigner(h, name);
    await signInApp(h, id);

    const { page, problems } = await openReview(operator, 'en', 360);
    await openSubmission(page, name);
    await expect
      .poll(() => text(page, '#replaces'))
      .toBe(`Address update: this mandate will replace mandate ${inForce}, in force. New addresses: ${siren}_EU.`);
    expect(await page.isVisible('#replaces')).toBe(true);
    await page.screenshot({ path: 'test-artifacts/review-renewal-360.png', fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('says when a submission renames the company: a mandate update, the name it had (en, 360 px)', async () => {
    const id = await newParty(h);
    expect((await register(h, id)).status).toBe('OK');
    const name = 'Raison Sociale Renommée SAS';
    const patch = await h.api('PATCH', `/silo/v1/entries/${id}`, {
      content_type: 'application/merge-patch+json',
      data: { name },
    });
    const job = await startRegistration(h, id, patch.body.mandate_renewal.workflow_id);
    expect((await jobWhen(h, job, ['WAIT'])).waiting_for).toBe('signer');
    const inForce = (await h.api('GET', `/apps/gov-fr/v1/review/submissions/${id}`)).body.replaces.mandate_number;
    await signInApp(h, id);

    const { page, problems } = await openReview(operator, 'en', 360);
    await openSubmission(page, name);
    await expect
      .poll(() => text(page, '#replaces'))
      .toBe(
        `Mandate update: this mandate will replace mandate ${inForce}, in force. It changes the legal name, which was: Boulangerie Exemple SAS.`,
      );
    await page.screenshot({ path: 'test-artifacts/review-rename-360.png', fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('says in words that an operator without the decide role can see nothing', async () => {
    const { page } = await openReview(await h.newOperator(['admin']));
    // The page's sentence alone, in French: not followed by the API's English detail.
    await expect
      .poll(() => text(page, '#status'))
      .toBe('Cet opérateur n’a pas le rôle « decide » : rien ne peut être affiché ni décidé.');
    expect(await page.locator('#queue li').count()).toBe(0);
    // In English, said once.
    await page.click('#lang-switch');
    expect(await text(page, '#status')).toBe('This operator lacks the “decide” role: nothing can be shown or decided.');
    await page.close();
  });

  it("refuses an integrator's API key at sign-in, in words, and keeps the form", async () => {
    const { page } = await openReview(h.apiKey, 'en');
    await expect
      .poll(() => text(page, '#status'))
      .toBe("This is not an operator credential: integrators' API keys cannot open the review.");
    expect(await page.isVisible('#login')).toBe(true);
    expect(await page.inputValue('#credential')).toBe(''); // the secret does not stay in the field
    await page.close();
  });

  it("adds the API's detail, on a labelled line of its own, only where the page has no sentence for the case", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.route(
      (url) => url.pathname.endsWith('/v1/review/submissions'),
      (route) =>
        route.fulfill({
          status: 500,
          contentType: 'application/problem+json',
          body: JSON.stringify({ status: 500, detail: 'the queue query failed' }),
        }),
    );
    await page.goto(`${h.baseUrl}/apps/gov-fr/review/`);
    await page.fill('#credential', operator);
    await page.click('#login button');
    await expect
      .poll(() => text(page, '#status'))
      .toBe('Erreur inattendue (HTTP 500).Détail (réponse du service, en anglais) : the queue query failed');
    expect(await text(page, '#status .api-detail span[lang="en"]')).toBe('the queue query failed');
    await page.close();
  });
});

describe('the review session', () => {
  it('keeps the credential out of the page: an HttpOnly, Secure, SameSite=Strict cookie, kept across a reload', async () => {
    const sub = await submittedEntry(h, { name: 'Session Gardée SAS' });
    const { page, problems } = await openReview(operator, 'en');
    await expect.poll(() => text(page, '#operator-name')).toBe('Signed in as Test operator');
    expect(await page.inputValue('#credential')).toBe('');
    const cookies = await page.context().cookies();
    expect(cookies.map((c) => [c.name, c.httpOnly, c.secure, c.sameSite, c.path])).toEqual([
      ['pa_operator_session', true, true, 'Strict', '/'],
    ]);
    expect(cookies[0]!.value).not.toContain(operator.slice(4)); // a session of its own, not the credential
    expect(await page.evaluate(() => document.cookie)).toBe(''); // no script of the page can read it
    await page.reload();
    await expect.poll(() => page.isVisible('#whoami')).toBe(true);
    await expect.poll(() => page.getByRole('button', { name: /Session Gardée SAS/ }).count()).toBe(1);
    expect(await page.isVisible('#login')).toBe(false);

    // Signed out: the form again, and the cookie's session refused by the API from then on.
    const token = cookies[0]!.value;
    await page.click('#sign-out');
    await expect.poll(() => page.isVisible('#login')).toBe(true);
    expect(await page.locator('#queue li').count()).toBe(0);
    const after = await fetch(`${h.baseUrl}/apps/gov-fr/v1/review/submissions/${sub.entryId}`, {
      headers: { cookie: `pa_operator_session=${token}` },
    });
    expect(after.status).toBe(401);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('ends after 30 minutes without a request, and the page asks to sign in again, saying why', async () => {
    await submittedEntry(h, { name: 'Session Oubliée SAS' });
    const { page, problems } = await openReview(operator, 'en');
    await expect.poll(() => page.getByRole('button', { name: /Session Oubliée SAS/ }).count()).toBe(1);
    await h.db.query(
      "UPDATE operator_sessions SET last_seen_at = now() - interval '31 minutes' WHERE ended_at IS NULL",
    );
    await openSubmission(page, 'Session Oubliée SAS');
    await expect.poll(() => page.isVisible('#login')).toBe(true);
    expect(await text(page, '#status')).toBe(
      'Your session has ended (30 minutes without activity, or signed out), or the credential is unknown, revoked or expired: sign in again.',
    );
    expect([await page.isVisible('#detail'), await page.locator('#queue li').count()]).toEqual([false, 0]);
    // Signed in again, the queue is back.
    await page.fill('#credential', operator);
    await page.click('#login button');
    await expect.poll(() => page.getByRole('button', { name: /Session Oubliée SAS/ }).count()).toBe(1);
    expect(problems.filter((p) => !/status of 401/.test(p))).toEqual([]);
    await page.close();
  });
});

describe('active content in a stored mandate', () => {
  it('serves the page under a CSP with no frames, plugins, eval or inline code, and no PDF scripting engine', async () => {
    const res = await fetch(`${h.baseUrl}/apps/gov-fr/review/`);
    const csp = res.headers.get('content-security-policy') ?? '';
    for (const d of [
      "default-src 'none'",
      "frame-src 'none'",
      "object-src 'none'",
      "script-src 'self' 'wasm-unsafe-eval'",
      "worker-src 'self'",
    ])
      expect(csp).toContain(d);
    expect(csp).not.toMatch(/'unsafe-eval'|'unsafe-inline'|data:/);
    const directives = Object.fromEntries(csp.split(/;\s*/).map((d) => [d.split(' ')[0], d]));
    for (const d of ['script-src', 'worker-src', 'frame-src', 'object-src'])
      expect(directives[d], d).not.toContain('blob:');
    const asset = (p: string) => fetch(`${h.baseUrl}/apps/gov-fr/review/assets/${p}`).then((r) => r.status);
    expect(await asset('pdfjs/pdf.min.mjs')).toBe(200);
    expect(await asset('pdfjs/pdf.worker.min.mjs')).toBe(200);
    expect(await asset('pdfjs/pdf.sandbox.min.mjs')).toBe(404); // pdf.js's JavaScript engine for PDFs: not served
    expect((await fetch(`${h.baseUrl}/apps/gov-fr/review`, { redirect: 'manual' })).headers.get('location')).toBe(
      '/apps/gov-fr/review/',
    );
  });

  it("draws a mandate carrying an OpenAction JavaScript without running it (Chromium's own viewer would)", async () => {
    const hits: string[] = [];
    const listener = http.createServer((req, res) => void (hits.push(req.url ?? ''), res.end('ok')));
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
    const beacon = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
    try {
      const pdf = await scriptedPdf(
        `app.alert('pdf script ran'); app.launchURL('${beacon}/launched', true); this.getURL('${beacon}/geturl');`,
      );
      const sub = await submittedEntry(h, { name: 'Mandat Piégé SAS' });
      // As a PDF stored before the upload checks were fixed: straight into the store, sealed like any mandate.
      await h.db.query('UPDATE mandates SET signed_pdf = $2 WHERE entry_id = $1', [
        sub.entryId,
        h.box.seal(pdf, `signed-mandate:${sub.entryId}`),
      ]);

      const { page, dialogs, problems, external } = await openReview(operator);
      const popups: string[] = [];
      page.context().on('page', (p) => popups.push(p.url()));
      await openSubmission(page, 'Mandat Piégé SAS');
      await expect.poll(() => text(page, '#mandate-message'), { timeout: 20_000 }).toBe('Mandat affiché (1 page(s)).');
      expect(await inkOnCanvases(page)).toBeGreaterThan(0.001);
      await page.waitForTimeout(1500); // time for a script to have run, had it been run
      expect({ dialogs, popups, hits, problems, external }).toEqual({
        dialogs: [],
        popups: [],
        hits: [],
        problems: [],
        external: [],
      });
      await page.close();

      // The control: the same bytes in the browser's PDF viewer (a blob: frame, as the page used to show them) run it.
      const control = await browser.newPage();
      const alerts: string[] = [];
      control.on('dialog', (d) => void (alerts.push(d.message()), d.dismiss()));
      await control.goto(`${beacon}/`);
      await control.evaluate((b64) => {
        const frame = document.createElement('iframe');
        frame.src = URL.createObjectURL(
          new Blob([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], { type: 'application/pdf' }),
        );
        document.body.append(frame);
      }, Buffer.from(pdf).toString('base64'));
      await expect.poll(() => alerts, { timeout: 15_000 }).toEqual(['pdf script ran']);
      await control.close();
    } finally {
      listener.close();
    }
  });
});

/** A one-page PDF with visible text whose catalog runs `js` when opened. */
async function scriptedPdf(js: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const font = await doc.embedFont(StandardFonts.HelveticaBold);
  page.drawText('MANDAT DE FACTURATION', { x: 60, y: 760, size: 30, font });
  page.drawText('Ce document porte un script à l’ouverture.', { x: 60, y: 700, size: 18, font });
  doc.catalog.set(PDFName.of('OpenAction'), doc.context.obj({ Type: 'Action', S: 'JavaScript', JS: PDFString.of(js) }));
  return doc.save();
}
