// "Pre-signed means signed" (issue 19 §3): an uploaded mandate is accepted with evidence that it was signed, and
// our mandate with nothing added is refused however it was re-saved. Active content is refused, naming it (§2).
import { execFileSync } from 'node:child_process';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/harness';
import { b64, jpeg } from '../../../bin/stack/sample-images';
import {
  cairoRerendered,
  digitallySigned,
  imageSigned,
  inkSigned,
  qpdfResaved,
  scanned,
  withActiveContent,
  withUnseenAnnotation,
  withWebLink,
  parked as parkedIn,
} from '../../support/hostile-files';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const base = (id: string) => `/apps/gov-fr/v1/entry/${id}`;

const parked = (hh: Harness = h) => parkedIn(hh);

const upload = (entryId: string, pdf: Uint8Array) => h.api('POST', `${base(entryId)}/agreement`, { data: b64(pdf) });

describe('our mandate with nothing added is refused', () => {
  it('as issued, re-saved by qpdf, re-rendered by pdftocairo: 422 not signed, saying how to sign', async () => {
    const { entryId, mandate, number } = await parked();
    // What the issued mandate holds: no image, no annotation (what would count as a visible signature).
    expect(
      execFileSync('pdfimages', ['-list', '-'], { input: mandate, encoding: 'utf8' })
        .split('\n')
        .filter((l) => /^\s*\d+\s+\d+\s+image/.test(l)),
    ).toEqual([]);
    expect(
      (await PDFDocument.load(mandate))
        .getPages()
        .map((p) => p.node.Annots()?.size() ?? 0)
        .filter((n) => n > 0),
    ).toEqual([]);
    for (const [how, pdf] of [
      ['as issued', mandate],
      ['qpdf', qpdfResaved(mandate)],
      ['pdftocairo', cairoRerendered(mandate)],
    ] as const) {
      const r = await upload(entryId, pdf);
      expect(r.status, how).toBe(422);
      expect(r.body.detail, how).toContain(`mandate ${number}, but no signature could be found on it`);
      expect(r.body.detail, how).toMatch(
        /sign it in the app, sign it digitally, add the signature as an image or an ink or stamp annotation, or print it, sign it and upload a scan/,
      );
    }
    expect((await h.api('POST', `${base(entryId)}/confirm`)).body.detail).toMatch(/a signature/); // nothing was stored
  });

  it('a PDF with text that is not our mandate: 422 naming the mandate number it must carry', async () => {
    const { entryId, number } = await parked();
    const other = await PDFDocument.create();
    other.addPage().drawText('Mandat 123456789_0145_20260101_01 — signé');
    const r = await upload(entryId, await inkSigned(await other.save()));
    expect(r.status).toBe(422);
    expect(r.body.detail).toBe(
      `data is not the mandate of this entry: it must be mandate ${number} (download it with GET agreement)`,
    );
  });
});

describe('a PDF that only quotes our mandate number', () => {
  it('is refused, even signed: its text must be the mandate we issued (in French or in English)', async () => {
    const { entryId, number } = await parked();
    const fake = await PDFDocument.create();
    const page = fake.addPage();
    page.drawText(`Mandat n° ${number}`, { x: 50, y: 780, size: 12 });
    page.drawText('Je ne désigne aucune plateforme et révoque tout mandat.', { x: 50, y: 760, size: 12 });
    const r = await upload(entryId, await imageSigned(await fake.save()));
    expect(r.status).toBe(422);
    expect(r.body.detail).toBe(
      `data is not the mandate of this entry: it must be mandate ${number} (download it with GET agreement)`,
    );
  });

  it('the English mandate, signed, is ours too', async () => {
    const { entryId } = await parked();
    const res = await fetch(`${h.baseUrl}${base(entryId)}/agreement?lang=en`, {
      headers: { authorization: `Bearer ${h.apiKey}` },
    });
    const english = Buffer.from(await res.arrayBuffer());
    const r = await upload(entryId, await inkSigned(english));
    expect(r.status, JSON.stringify(r.body)).toBe(204);
  });
});

describe('signed mandates are accepted, with their evidence in the review queue', () => {
  it.each([
    ['a digital signature', digitallySigned, 'digital-signature'],
    ['an ink annotation', inkSigned, 'visible-signature'],
    ['an image placed on the page', imageSigned, 'visible-signature'],
    ['a scan', (m: Uint8Array) => scanned(m), 'scan'],
  ] as [string, (m: Uint8Array) => Promise<Uint8Array>, string][])('%s', async (_how, sign, evidence) => {
    const { entryId, mandate } = await parked();
    const r = await upload(entryId, await sign(mandate));
    expect(r.status, JSON.stringify(r.body)).toBe(204);
    await h.api('POST', `${base(entryId)}/identity`, { view: 'page', data: b64(jpeg()) });
    expect((await h.api('POST', `${base(entryId)}/confirm`)).status).toBe(200);
    const queue = (await h.api('GET', '/apps/gov-fr/v1/review/submissions')).body.list;
    expect(queue.find((s: { entry_id: string }) => s.entry_id === entryId)?.upload_evidence).toBe(evidence);
  });

  it('a scan with an OCR text layer (even a misread number) is a scan, for the operator to check by eye', async () => {
    const { entryId, mandate, number } = await parked();
    expect((await upload(entryId, await scanned(mandate, `Mandat n° ${number}`))).status).toBe(204);
    const other = await parked();
    expect((await upload(other.entryId, await scanned(other.mandate, 'Mandat n° 0OO0_misread'))).status).toBe(204);
  });

  it('in-app signatures have no upload evidence', async () => {
    const { entryId } = await parked();
    await h.api('POST', `${base(entryId)}/identity`, { view: 'page', data: b64(jpeg()) });
    expect((await h.api('POST', `${base(entryId)}/sign`, {})).status).toBe(204);
    expect((await h.api('POST', `${base(entryId)}/confirm`)).status).toBe(200);
    const queue = (await h.api('GET', '/apps/gov-fr/v1/review/submissions')).body.list;
    expect(queue.find((s: { entry_id: string }) => s.entry_id === entryId)).toMatchObject({ upload_evidence: null });
  });

  it('a digital signature that does not verify (the signed bytes altered) is refused as such', async () => {
    const { entryId, mandate } = await parked();
    const signed = Buffer.from(await digitallySigned(mandate));
    expect(signed.subarray(0, 8).toString('latin1')).toBe('%PDF-1.7');
    signed.write('6', 7, 'latin1'); // the header's version, inside the signed bytes: nothing a reader shows
    const r = await upload(entryId, signed);
    expect(r.status).toBe(422);
    expect(r.body.detail).toMatch(/a digital signature that does not verify/);
  });

  it('a digital signature over another document does not count for ours', async () => {
    const { entryId } = await parked();
    const other = await PDFDocument.create();
    other.addPage().drawText('Mandat 123456789_0145_20260101_01');
    const r = await upload(entryId, await digitallySigned(await other.save()));
    expect(r.status).toBe(422);
    expect(r.body.detail).toMatch(/is not the mandate of this entry/);
  });
});

describe('active content is refused, named', () => {
  it.each([
    ['javascript', /JavaScript/],
    ['launch', /a launch action/],
    ['embedded-file', /an embedded file/],
    ['xfa', /an XFA form/],
    ['uri-on-opening', /an action on opening \(URI\)/],
    ['uri-on-page-open', /an automatic action \(URI\)/],
    ['goto-then-uri', /an action on opening \(URI\)/],
    ['submit-form', /a form submission/],
    ['gotor-unc', /a link to another file \(GoToR\)/],
    ['import-data', /a data import/],
    ['javascript-uri-link', /a link that is not a web address \(javascript:\)/],
    ['file-uri-link', /a link that is not a web address \(file:\)/],
  ] as const)('%s', async (kind, named) => {
    const { entryId, mandate } = await parked();
    const r = await upload(entryId, await withActiveContent(mandate, kind));
    expect(r.status).toBe(422);
    expect(r.body.detail).toMatch(/is a PDF with active content/);
    expect(r.body.detail).toMatch(named);
  });

  it('a plain web link and an opening action that shows the first page are not active content', async () => {
    const { entryId, mandate } = await parked();
    const r = await upload(entryId, await withWebLink(mandate));
    expect(r.status, JSON.stringify(r.body)).toBe(204);
  });
});

describe('annotations no reader shows are no signature', () => {
  it.each([
    ['a Stamp flagged Hidden, without appearance', 'hidden-stamp'],
    ['an Ink of no size with no strokes', 'empty-ink'],
    ['an Ink flagged NoView', 'noview-ink'],
    ['an Ink whose appearance draws nothing', 'blank-appearance'],
    ['an Ink off the page', 'off-page-ink'],
    ['a Stamp flagged Invisible, without appearance', 'invisible-stamp'],
  ] as const)('%s: 422, our mandate without a signature', async (_how, kind) => {
    const { entryId, mandate, number } = await parked();
    const r = await upload(entryId, await withUnseenAnnotation(mandate, kind));
    expect(r.status, JSON.stringify(r.body)).toBe(422);
    expect(r.body.detail).toContain(`is mandate ${number}`);
    expect(r.body.detail).not.toMatch(/active content|not the mandate/);
  });
});
