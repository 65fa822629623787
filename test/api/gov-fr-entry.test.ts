// The entry API (seed §4.1, §4.2) over HTTP, with the registration's first steps running on the real dev server.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agreementSign } from '../../activities/gov-fr-agreement';
import { journalledStatement } from '../../activities/journalled';
import type { StepCall } from '../../contract/journal';
import { eventually, log, startHarness, type Harness } from '../support/harness';
import { makeSiren, party } from '../../bin/stack/sample-parties';
import { b64, gif, jpeg, png } from '../../bin/stack/sample-images';
import { pdfText } from '../support/pdf-text';
import { inkSigned } from '../support/signed-pdf';
import { generateSelfSigned } from '../../platform/crypto/dev-certificates';
import { sealPdf } from '../../domain/mandate-document/seal';
import { createWorkflow, entryState, jobWhen, setState, startJob, step } from '../support/jobs';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const base = (id: string) => `/apps/gov-fr/v1/entry/${id}`;

/** An entry whose registration (sign, processing, wait, completed) is parked on the approval wait. */
async function parkedEntry(hh: Harness = h, data: unknown = party(makeSiren())) {
  const entryId = crypto.randomUUID();
  expect((await hh.api('PUT', `/silo/v1/entries/${entryId}`, { data })).status).toBe(200);
  const wf = await createWorkflow(hh, [
    step('gov-fr.agreement.sign'),
    setState('processing'),
    step('gov-fr.agreement.wait.approval'),
    setState('completed'),
  ]);
  const jobId = await startJob(hh, wf, entryId);
  await jobWhen(hh, jobId, ['WAIT']);
  return { entryId, jobId };
}

async function pdf(path: string, hh: Harness = h) {
  const res = await fetch(hh.baseUrl + path, { headers: { authorization: `Bearer ${hh.apiKey}` } });
  return { status: res.status, type: res.headers.get('content-type'), bytes: new Uint8Array(await res.arrayBuffer()) };
}

describe('gov-fr.agreement.sign', () => {
  it('issues the mandate and publishes one unguessable approval link', async () => {
    const { entryId } = await parkedEntry();
    const entry = (await h.api('GET', `/silo/v1/entries/${entryId}`)).body;
    const links = entry.meta.filter((m: any) => m.key === 'approval-link');
    expect(links).toHaveLength(1);
    const link = links[0];
    expect(link).toMatchObject({
      src: 'gov-fr',
      key: 'approval-link',
      link_scope: 'public',
      indexed: true,
      shared: true,
    });
    expect(Buffer.from(link.ref, 'base64url').length).toBeGreaterThanOrEqual(16); // ≥ 128 bits
    expect(link.link_url).toBe(`${h.config.wizardUrl}/reg/${link.ref}/start`);
    expect(entry.state).toBe('processing');
  });

  it('run again for the same job (a retried activity), it keeps the one link and the one mandate number', async () => {
    const { entryId, jobId } = await parkedEntry();
    const before = (await h.api('GET', `/silo/v1/entries/${entryId}`)).body.meta;
    // The step's activity as the worker builds it, before its result is cut to what the workflow needs.
    const sign = journalledStatement(h.db, agreementSign({ db: h.db, log, config: h.config }));
    const again: { mandateNumber: string; linkCreated: boolean } = await new MockActivityEnvironment().run(sign, {
      jobId,
      workspaceId: h.workspaceId,
      entryId,
      stepId: (await h.api('GET', `/transform/v1/jobs/${jobId}`)).body.intents[0].step_id, // its sign step
    } satisfies StepCall);
    expect(again.linkCreated).toBe(false);
    expect(again.mandateNumber).toMatch(/_01$/);
    expect((await h.api('GET', `/silo/v1/entries/${entryId}`)).body.meta).toEqual(before);
  });

  it('a parked registration is found in Temporal by its party state and entry', async () => {
    const { entryId, jobId } = await parkedEntry();
    const found = await eventually(
      async () => {
        const ids: string[] = [];
        for await (const wf of h.client.workflow.list({
          query: `PartyState="processing" AND JobStatus="WAIT" AND SiloEntryId="${entryId}"`,
        }))
          ids.push(wf.workflowId);
        return ids.length ? ids : undefined;
      },
      15_000,
      'the visibility store',
    );
    expect(found).toEqual([`job-${jobId}`]);
  });
});

describe('GET agreement', () => {
  it('serves the pre-filled mandate PDF carrying its number and the entry id', async () => {
    const siren = makeSiren();
    const { entryId } = await parkedEntry(h, party(siren));
    const r = await pdf(`${base(entryId)}/agreement`);
    expect(r.status).toBe(200);
    expect(r.type).toBe('application/pdf');
    const doc = await PDFDocument.load(r.bytes);
    expect(doc.getTitle()).toMatch(new RegExp(`^Mandat ${siren}_${h.config.PA_SIREN}_\\d{8}_01$`)); // the PA's SIREN (DSE model form)
    expect(doc.getKeywords()).toContain(entryId);
    // Read back by an independent PDF reader: the party, the PA and the signer, pre-filled.
    const text = pdfText(r.bytes);
    expect(text).toContain(`SIREN : ${siren}`);
    expect(text).toContain('Dénomination : Boulangerie Exemple SAS');
    expect(text).toContain(`matricule de plateforme : ${h.config.PA_MATRICULE}`);
    expect(text).toContain('Prénom : Élodie');
    expect(text).toContain("Nom : N'Guessan-Dupré");
    expect(text).not.toContain('X4RTBPFW4'); // checked against the identity document, never printed
    expect(text).toMatch(/Fait à Paris le \d\d\/\d\d\/\d{4}/);
    expect(text).not.toContain('Consentement à la reprise');
  });

  it('in English on request (?lang=en), French by default, and refuses other languages', async () => {
    const { entryId } = await parkedEntry();
    const en = pdfText((await pdf(`${base(entryId)}/agreement?lang=en`)).bytes);
    expect(en).toContain('MANDATE APPOINTING AN APPROVED PLATFORM AND REQUESTING THE UPDATE OF ADDRESSES');
    expect(en).toContain('First name: Élodie');
    expect(en).not.toContain('Dénomination');
    expect(pdfText((await pdf(`${base(entryId)}/agreement`)).bytes)).toContain(
      'MANDAT DE RACCORDEMENT À UNE PLATEFORME AGRÉÉE ET DE DEMANDE DE MISE À JOUR DES ADRESSES',
    );
    expect((await h.api('GET', `${base(entryId)}/agreement?lang=de`)).status).toBe(400);
    expect((await h.api('POST', `${base(entryId)}/sign?lang=en`, {})).status).toBe(204);
    expect(pdfText((await pdf(`${base(entryId)}/agreement`)).bytes)).toContain("Last name: N'Guessan-Dupré");
  });

  it('422 naming the missing signer fields', async () => {
    const { entryId } = await parkedEntry(h, { ...party(makeSiren()), people: [{ name: { given: 'Élodie' } }] });
    const r = await h.api('GET', `${base(entryId)}/agreement`);
    expect(r.status).toBe(422);
    expect(r.body.detail).toMatch(/people\[0\]\.name\.surname, people\[0\]\.role, people\[0\]\.identities\[0\]\.code/);
    expect((await h.api('POST', `${base(entryId)}/sign`, {})).status).toBe(422);
  });

  it('404 for an unknown entry, 409 before any registration issued a mandate', async () => {
    expect((await h.api('GET', `${base(crypto.randomUUID())}/agreement`)).status).toBe(404);
    const { body } = await h.api('POST', '/silo/v1/entries', { data: party() });
    const r = await h.api('GET', `${base(body.id)}/agreement`);
    expect(r.status).toBe(409);
    expect(r.body.detail).toMatch(/start a registration job/);
  });
});

describe('in-app signing, rejection and resubmission', () => {
  it('goes submitted, back to processing with the reason, then completed once approved', async () => {
    const { entryId, jobId } = await parkedEntry();
    const unsigned = await pdf(`${base(entryId)}/agreement`);

    expect((await h.api('POST', `${base(entryId)}/identity`, { view: 'front', data: b64(png()) })).status).toBe(204);
    let c = await h.api('POST', `${base(entryId)}/confirm`);
    expect(c.status).toBe(422);
    expect(c.body.detail).toMatch(/back of the ID card.*signature/);
    expect((await h.api('POST', `${base(entryId)}/identity`, { view: 'back', data: b64(jpeg()) })).status).toBe(204);
    expect((await h.api('POST', `${base(entryId)}/sign`, {})).status).toBe(204); // typed

    const signed = await pdf(`${base(entryId)}/agreement`);
    expect(Buffer.compare(Buffer.from(signed.bytes), Buffer.from(unsigned.bytes))).not.toBe(0);
    // The typed signature is the signer's name, drawn in the signature box.
    expect(pdfText(signed.bytes).match(/Élodie N'Guessan-Dupré/g)?.length).toBe(1);
    expect(pdfText(unsigned.bytes)).not.toContain("Élodie N'Guessan-Dupré");
    // …in the embedded handwriting font, accents and apostrophe included.
    expect(execFileSync('pdffonts', ['-'], { input: Buffer.from(signed.bytes), encoding: 'utf8' })).toMatch(
      /DancingScript\S*\s+CID TrueType\s+Identity-H\s+yes/,
    );

    c = await h.api('POST', `${base(entryId)}/confirm`);
    expect(c).toMatchObject({ status: 200, body: { status: 'submitted' } });
    await expect.poll(() => entryState(h, entryId), { timeout: 15_000 }).toBe('submitted');
    expect((await h.api('POST', `${base(entryId)}/sign`, {})).status).toBe(409); // under review

    const reject = await h.api('POST', `${base(entryId)}/decision`, {
      approved: false,
      reason: 'The ID card is unreadable',
    });
    expect(reject.status).toBe(200);
    await expect.poll(() => entryState(h, entryId), { timeout: 15_000 }).toBe('processing');
    const decision = (await h.api('GET', `/silo/v1/entries/${entryId}/meta/approval-decision`)).body;
    expect(decision.value).toMatchObject({ decision: 'rejected', reason: 'The ID card is unreadable' });

    // A new submission: the earlier signature no longer counts.
    expect((await h.api('POST', `${base(entryId)}/confirm`)).status).toBe(422);
    expect((await h.api('POST', `${base(entryId)}/identity`, { view: 'front', data: b64(png(200, 120)) })).status).toBe(
      204,
    );
    expect((await h.api('POST', `${base(entryId)}/sign`, { signature: b64(png()) })).status).toBe(204); // drawn
    expect((await h.api('POST', `${base(entryId)}/confirm`)).status).toBe(200);
    await expect.poll(() => entryState(h, entryId), { timeout: 15_000 }).toBe('submitted');
    expect((await h.api('POST', `${base(entryId)}/decision`, { approved: true })).status).toBe(200);
    expect((await jobWhen(h, jobId, ['OK', 'ERR'])).status).toBe('OK');
    expect(await entryState(h, entryId)).toBe('completed');
  });
});

describe('two operators deciding at once', () => {
  it('one decision wins and is the one recorded; the other is told the submission was decided', async () => {
    const { entryId, jobId } = await parkedEntry();
    expect((await h.api('POST', `${base(entryId)}/identity`, { view: 'front', data: b64(png()) })).status).toBe(204);
    expect((await h.api('POST', `${base(entryId)}/identity`, { view: 'back', data: b64(jpeg()) })).status).toBe(204);
    expect((await h.api('POST', `${base(entryId)}/sign`, {})).status).toBe(204);
    expect((await h.api('POST', `${base(entryId)}/confirm`)).status).toBe(200);
    const [a, b] = await Promise.all([
      h.api('POST', `${base(entryId)}/decision`, { approved: true }),
      h.api('POST', `${base(entryId)}/decision`, { approved: false, reason: 'The ID card is unreadable' }),
    ]);
    const won = [a, b].filter((r) => r.status === 200);
    const lost = [a, b].filter((r) => r.status !== 200);
    expect(won).toHaveLength(1);
    expect(lost[0]!.status).toBe(409);
    expect(['decided', 'not-waiting']).toContain(lost[0]!.body.code);
    const { rows } = await h.db.query<{ id: string }>('SELECT id FROM approval_decisions WHERE job_id = $1', [jobId]);
    expect(rows.map((r) => r.id)).toEqual([won[0]!.body.id]);
    const meta = (await h.api('GET', `/silo/v1/entries/${entryId}/meta/approval-decision`)).body;
    expect(meta.value).toMatchObject({ id: won[0]!.body.id, decision: won[0]!.body.decision });
  });
});

describe('pre-signed path', () => {
  it('accepts a passport page and an uploaded signed PDF', async () => {
    const { entryId, jobId } = await parkedEntry();
    expect((await h.api('POST', `${base(entryId)}/identity`, { view: 'page', data: b64(jpeg()) })).status).toBe(204);
    // Signed outside: a handwritten signature drawn on the mandate (an ink annotation), as a PDF reader adds it.
    const signedOutside = { bytes: await inkSigned((await pdf(`${base(entryId)}/agreement`)).bytes) };
    expect((await h.api('POST', `${base(entryId)}/agreement`, { data: b64(signedOutside.bytes) })).status).toBe(204);
    expect((await h.api('POST', `${base(entryId)}/confirm`)).body).toEqual({ status: 'submitted' });
    await expect.poll(() => entryState(h, entryId), { timeout: 15_000 }).toBe('submitted');
    expect((await h.api('POST', `${base(entryId)}/decision`, { approved: true })).status).toBe(200);
    expect((await jobWhen(h, jobId, ['OK', 'ERR'])).status).toBe('OK');
    // The uploaded mandate, followed by the audit page, sealed.
    const final = pdfText((await pdf(`${base(entryId)}/agreement`)).bytes);
    expect(final).toContain(pdfText(signedOutside.bytes).trim().slice(0, 200));
    expect(final).toContain(
      `Empreinte SHA-256 du document avant signature : ${crypto.createHash('sha256').update(signedOutside.bytes).digest('hex')}`,
    );
    expect(final).toContain('mode : document signé hors ligne');
    expect(final).toMatch(/Page passeport \([^)]+\) — SHA-256 :/);
  });

  it('keeps the digital signature the representative put on the uploaded mandate, under our seal', async () => {
    const { entryId } = await parkedEntry();
    await h.api('POST', `${base(entryId)}/identity`, { view: 'page', data: b64(jpeg()) });
    const blank = (await pdf(`${base(entryId)}/agreement`)).bytes;
    const representative = generateSelfSigned('Elodie Representative');
    const signedOutside = await sealPdf(blank, representative, {
      name: 'Élodie',
      reason: 'I agree',
      location: 'Paris',
      contact: '',
    });
    expect((await h.api('POST', `${base(entryId)}/agreement`, { data: b64(signedOutside) })).status).toBe(204);
    expect((await h.api('POST', `${base(entryId)}/confirm`)).status).toBe(200);

    const file = path.join(os.tmpdir(), `presigned-${entryId}.pdf`);
    fs.writeFileSync(file, (await pdf(`${base(entryId)}/agreement`)).bytes);
    const report = spawnSync('pdfsig', [file], { encoding: 'utf8' }).stdout;
    fs.rmSync(file);
    const [theirs, ours] = report.split('Signature #2:');
    expect(theirs).toContain('Common Name: Elodie Representative');
    expect(theirs).toContain('Signature Validation: Signature is Valid.');
    expect(ours).toContain('Common Name: Test PA (mandate seal)');
    expect(ours).toContain('Signature Validation: Signature is Valid.');
    expect(ours).toContain('Total document signed');
  });
});

describe('limits and wrong types', () => {
  it('refuses non-images, oversized and malformed uploads, keeping what was stored', async () => {
    const { entryId } = await parkedEntry();
    const up = (body: unknown) => h.api('POST', `${base(entryId)}/identity`, body);
    expect((await up({ view: 'front', data: b64(png()) })).status).toBe(204);
    expect((await up({ view: 'front', data: b64(gif()) })).status).toBe(415);
    expect((await up({ view: 'front', data: b64(Buffer.from('%PDF-1.7 not an image')) })).status).toBe(415);
    expect((await up({ view: 'front', data: 'not base64!' })).status).toBe(400);
    expect((await up({ view: 'side', data: b64(png()) })).status).toBe(400);
    expect((await up({ view: 'front' })).status).toBe(400);
    const big = Buffer.concat([png(), Buffer.alloc(4 * 1024 * 1024)]);
    const r = await up({ view: 'front', data: b64(big) });
    expect(r.status).toBe(413);
    expect(r.body.detail).toMatch(/larger than 4 MB/);
    const huge = await up({ view: 'front', data: 'A'.repeat(7 * 1024 * 1024) });
    expect(huge.status).toBe(413);

    expect((await h.api('POST', `${base(entryId)}/sign`, { signature: b64(gif()) })).status).toBe(415);
    const textBody = await fetch(`${h.baseUrl}${base(entryId)}/sign`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': 'text/plain' },
      body: 'sign please',
    });
    expect(textBody.status).toBe(415);
    expect((await h.api('POST', `${base(entryId)}/sign`, { signature: b64(png().subarray(0, 40)) })).status).toBe(422);
    expect((await h.api('POST', `${base(entryId)}/agreement`, { data: b64(Buffer.from('hello')) })).status).toBe(415);
    expect(
      (await h.api('POST', `${base(entryId)}/agreement`, { data: b64(Buffer.from('%PDF-1.7\n garbage')) })).status,
    ).toBe(422);
    // A valid PDF, but not this entry's mandate.
    const other = await PDFDocument.create();
    other.addPage().drawText('Mandat 123456789_0145_20260101_01');
    const notOurs = await h.api('POST', `${base(entryId)}/agreement`, { data: b64(await other.save()) });
    expect(notOurs.status).toBe(422);
    expect(notOurs.body.detail).toMatch(/not the mandate of this entry/);
    // Nothing of that replaced the stored front image, nor signed anything.
    const c = await h.api('POST', `${base(entryId)}/confirm`);
    expect(c.status).toBe(422);
    expect(c.body.detail).toMatch(/back of the ID card.*signature/);
  });

  it('needs an operator to decide (no API key, even with every scope), and a reason to reject', async () => {
    const { entryId } = await parkedEntry();
    expect((await h.api('POST', `${base(entryId)}/decision`, { approved: true }, h.apiKey)).status).toBe(403);
    expect((await h.api('POST', `${base(entryId)}/decision`, { approved: false })).status).toBe(400);
    expect((await h.api('POST', `${base(entryId)}/decision`, { approved: true })).status).toBe(409); // nothing submitted
  });
});

describe('the confirmed mandate', () => {
  it('ends with an audit page and is sealed: pdfsig and qpdf --check accept it', async () => {
    const { entryId } = await parkedEntry();
    const front = png(80, 40);
    await h.api('POST', `${base(entryId)}/identity`, { view: 'front', data: b64(front) });
    await h.api('POST', `${base(entryId)}/identity`, { view: 'back', data: b64(jpeg()) });
    const before = crypto
      .createHash('sha256')
      .update((await pdf(`${base(entryId)}/agreement`)).bytes)
      .digest('hex');
    await h.api('POST', `${base(entryId)}/sign`, { signature: b64(png()) });
    expect((await h.api('POST', `${base(entryId)}/confirm`)).status).toBe(200);

    const final = (await pdf(`${base(entryId)}/agreement`)).bytes;
    const text = pdfText(final);
    expect(text).toContain('PISTE D’AUDIT');
    expect(text).toContain(`Empreinte SHA-256 du document avant signature : ${before}`);
    expect(text).toContain("Signataire : Élodie N'Guessan-Dupré (Présidente)");
    expect(text).toContain('mode : signature manuscrite');
    expect(text).toMatch(
      new RegExp(`Recto \\([^)]+\\) — SHA-256 : ${crypto.createHash('sha256').update(front).digest('hex')}`),
    );
    expect(text).toMatch(/Depuis : IP (::ffff:)?127\.0\.0\.1 — node/);
    expect(text).toMatch(/Confirmation Date : \d\d\/\d\d\/\d{4} à \d\d:\d\d:\d\d UTC/);

    const file = path.join(os.tmpdir(), `mandate-${entryId}.pdf`);
    fs.writeFileSync(file, final);
    const sig = spawnSync('pdfsig', [file], { encoding: 'utf8' });
    expect(sig.stdout).toContain('Signature Type: ETSI.CAdES.detached');
    expect(sig.stdout).toContain(`Signer Certificate Common Name: Test PA (mandate seal)`);
    expect(sig.stdout).toContain('Signature Validation: Signature is Valid.');
    expect(sig.stdout).toContain('Total document signed');
    const check = spawnSync('qpdf', ['--check', file], { encoding: 'utf8' });
    expect(check.status, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toContain('No syntax or stream encoding errors found');
    fs.rmSync(file);
  });

  it('writes the audit page in the language the mandate was signed in', async () => {
    const { entryId } = await parkedEntry();
    await h.api('POST', `${base(entryId)}/identity`, { view: 'page', data: b64(jpeg()) });
    expect((await h.api('POST', `${base(entryId)}/sign?lang=en`, {})).status).toBe(204);
    expect((await h.api('POST', `${base(entryId)}/confirm`)).status).toBe(200);
    const text = pdfText((await pdf(`${base(entryId)}/agreement`)).bytes);
    expect(text).toContain('AUDIT TRAIL');
    expect(text).toMatch(/Confirmation Date: \d{1,2} [A-Z][a-z]+ \d{4} at \d\d:\d\d:\d\d UTC/);
    expect(text).not.toMatch(/PISTE D’AUDIT|Signataire|\d{4}-\d\d-\d\d/);
  });
});

describe('operator review', () => {
  it("lists pending submissions, serves the identity images decrypted, and only to the platform's operators", async () => {
    const { entryId } = await parkedEntry();
    const page = png(64, 32);
    await h.api('POST', `${base(entryId)}/identity`, { view: 'page', data: b64(page) });
    await h.api('POST', `${base(entryId)}/sign`, {});
    await h.api('POST', `${base(entryId)}/confirm`);

    const queue = (await h.api('GET', '/apps/gov-fr/v1/review/submissions')).body.list;
    expect(queue.map((s: any) => s.entry_id)).toContain(entryId);
    const img = await fetch(`${h.baseUrl}${base(entryId)}/identity/page`, {
      headers: { authorization: `Bearer ${h.operator}` },
    });
    expect(img.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await img.arrayBuffer()).equals(page)).toBe(true);
    expect((await h.api('GET', `${base(entryId)}/identity/front`)).status).toBe(404);

    // The workspace's own key, every scope, reaches neither; any operator reaches both.
    expect((await h.api('GET', '/apps/gov-fr/v1/review/submissions', undefined, h.apiKey)).status).toBe(403);
    expect((await h.api('GET', `${base(entryId)}/identity/page`, undefined, h.apiKey)).status).toBe(403);
    expect((await h.api('GET', `${base(entryId)}/identity/page`, undefined, h.secondOperator)).status).toBe(200);

    // Decided submissions leave the queue.
    await h.api('POST', `${base(entryId)}/decision`, { approved: true });
    expect(
      (await h.api('GET', '/apps/gov-fr/v1/review/submissions')).body.list.map((s: any) => s.entry_id),
    ).not.toContain(entryId);
  });

  it('serves the review page and its script from the service, with a strict content security policy', async () => {
    const page = await fetch(`${h.baseUrl}/apps/gov-fr/review/`);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy');
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'"); // our own scripts only: no inline code, no other origin
    expect(csp).toContain("frame-src 'none'"); // documents are drawn by pdf.js, never in the browser's PDF viewer
    const html = await page.text();
    expect(html).toContain('Revue des mandats');
    expect(html).not.toMatch(/https?:\/\//); // no third-party resource
    // The script the page loads is ours, served as JavaScript.
    const script = /<script[^>]* src="(assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect((await fetch(`${h.baseUrl}/apps/gov-fr/review/${script}`)).headers.get('content-type')).toMatch(
      /javascript/,
    );
  });
});

describe('at rest', () => {
  it('stores identity images and signed mandates encrypted: the raw rows hold no plaintext', async () => {
    const { entryId } = await parkedEntry();
    const image = png(123, 45);
    await h.api('POST', `${base(entryId)}/identity`, { view: 'page', data: b64(image) });
    await h.api('POST', `${base(entryId)}/sign`, {});
    const served = (await pdf(`${base(entryId)}/agreement`)).bytes;
    const { rows: ids } = await h.db.query<{ data: Uint8Array }>(
      'SELECT data FROM identity_documents WHERE entry_id = $1',
      [entryId],
    );
    const { rows: ags } = await h.db.query<{ signed_pdf: Uint8Array }>(
      'SELECT signed_pdf FROM mandates WHERE entry_id = $1',
      [entryId],
    );
    const rawImage = Buffer.from(ids[0]!.data);
    const rawPdf = Buffer.from(ags[0]!.signed_pdf);
    expect(rawImage.includes(image.subarray(16, 64))).toBe(false);
    expect(rawImage.subarray(0, 8).equals(image.subarray(0, 8))).toBe(false);
    expect(rawPdf.includes(Buffer.from('%PDF'))).toBe(false);
    expect(rawPdf.includes(Buffer.from(served.subarray(200, 260)))).toBe(false);
    expect(Buffer.from(served.subarray(0, 5)).toString()).toBe('%PDF-');
  });
});

describe('auto-approve (sandbox)', () => {
  it('approves on confirm', async () => {
    const sandbox = await startHarness({ env: { AUTO_APPROVE: 'true' } });
    try {
      const { entryId, jobId } = await parkedEntry(sandbox);
      await sandbox.api('POST', `${base(entryId)}/identity`, { view: 'page', data: b64(png()) });
      await sandbox.api('POST', `${base(entryId)}/sign`, {});
      expect((await sandbox.api('POST', `${base(entryId)}/confirm`)).body).toEqual({ status: 'submitted' });
      expect((await jobWhen(sandbox, jobId, ['OK', 'ERR'])).status).toBe('OK');
      expect(await entryState(sandbox, entryId)).toBe('completed');
    } finally {
      await sandbox.close();
    }
  });
});
