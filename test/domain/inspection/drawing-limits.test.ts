// Drawing instructions under limits (issue 40 §2): operations, strings and content bytes are counted per page and in
// all as they are read — forms each time drawn, Type 3 glyphs, the revisions digital signatures signed — and the
// reading stops the moment a count passes its limit. The costliest file accepted is checked, in a pool child, in
// half a second at most (its CPU time; printed with the wall time).
import fs from 'node:fs';
import zlib from 'node:zlib';
import { PDFDict, PDFDocument, PDFName, PDFRawStream, StandardFonts, type PDFPageLeaf } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMandatePdf } from '../../../domain/mandate-document/pdf';
import { InspectionPool, RefusedFile } from '../../../domain/inspection';
import { inspectMandate } from '../../../domain/inspection/inspect-pdf';
import { PDF_LIMITS } from '../../../domain/inspection/limits';
import { party } from '../../../bin/stack/sample-parties';
import { costliestAccepted } from '../../support/costly-pdf';
import { appendObject, digitallySigned, flateObject, inkSigned } from '../../support/hostile-files';

const reference = {
  party: party('552032534') as never,
  siren: '552032534',
  pa: { name: 'PA', siren: '552032534', matricule: '0145' },
  mandateNumber: '552032534_0145_20261125_01',
  issuedOn: '2026-11-25',
  entryId: 'e',
};
let mandate: Uint8Array;
let pool: InspectionPool;
beforeAll(async () => {
  mandate = await buildMandatePdf(reference);
  pool = new InspectionPool({ size: 1, queue: 4, timeMs: 30_000, memoryMb: 1024 });
});
afterAll(() => pool.close());

/** The child's CPU time so far (Linux: /proc, in clock ticks of 10 ms). */
function childCpuMs(): number {
  const pid = (pool as unknown as { slots: { child: { pid: number } }[] }).slots[0]!.child.pid;
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime
}

const check = (bytes: Uint8Array) => pool.run({ kind: 'mandate', bytes, reference });

async function refusal(p: Promise<unknown>) {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RefusedFile);
  return (err as RefusedFile).refusal;
}

/** Our mandate (signed with ink) and one more page drawing `body`, deflated; `setup` adds to its resources. */
async function withPage(body: (font: string) => string, setup?: (doc: PDFDocument, page: PDFPageLeaf) => void) {
  const doc = await PDFDocument.load(await inkSigned(mandate));
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([595.28, 841.89]);
  page.drawText('Annexe', { font, size: 10, x: 56, y: 800 });
  const name = (page.node.Resources()!.lookup(PDFName.of('Font'), PDFDict).keys()[0] as PDFName).decodeText();
  setup?.(doc, page.node);
  const data = zlib.deflateSync(Buffer.from(body(name), 'latin1'), { level: 9 });
  page.node.addContentStream(
    doc.context.register(PDFRawStream.of(doc.context.obj({ Filter: 'FlateDecode' }) as PDFDict, data)),
  );
  return doc.save();
}

describe('the costliest file the limits accept', () => {
  it(`is accepted and checked in ≤ 500 ms (${PDF_LIMITS.pages} pages, ${PDF_LIMITS.operators} operations)`, async () => {
    const costly = await costliestAccepted(mandate);
    expect(costly.length).toBeLessThan(100 * 1024); // cheap to send
    const runs: { wallMs: number; cpuMs: number }[] = [];
    for (let i = 0; i < 7; i++) {
      const [cpu, t] = [childCpuMs(), performance.now()];
      expect(await check(costly)).toEqual({ evidence: 'visible-signature' });
      runs.push({ wallMs: performance.now() - t, cpuMs: childCpuMs() - cpu });
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const measured = runs.slice(2); // the child's first files warm its code (pdf.js, our fonts)
    const figures = {
      bytes: costly.length,
      wallMs: Math.round(median(measured.map((r) => r.wallMs))),
      cpuMs: median(measured.map((r) => r.cpuMs)),
      firstWallMs: Math.round(runs[0]!.wallMs),
    };
    console.log(`costliest accepted PDF, checked in a pool child: ${JSON.stringify(figures)}`);
    expect(figures.cpuMs).toBeLessThanOrEqual(500);
    // Twice the limits (a page's or the document's operations) is refused, and sooner than the accepted is checked.
    for (const pages of [2, undefined]) {
      const t = performance.now();
      const r = await refusal(check(await costliestAccepted(mandate, 2, pages)));
      expect(r.reason).toMatch(/more than \d+ drawing operations \(the limit\)/);
      console.log(`twice the limits on ${pages ?? 'all'} pages: refused in ${Math.round(performance.now() - t)} ms`);
    }
  });
});

describe('over a limit, the reading stops there', () => {
  it('3 million operators on one page: refused by their bytes before they are read', async () => {
    const pdf = await withPage(() => 'n '.repeat(3_000_000));
    const t = performance.now();
    const r = await refusal(check(pdf));
    expect(r.reason).toBe('is too complex to check: a page has more than 256 KB of drawing instructions (the limit)');
    expect(performance.now() - t).toBeLessThan(2000);
  });

  it('a page of 60,000 operators: refused at the 10,001st', async () => {
    const r = await refusal(check(await withPage(() => 'q Q '.repeat(30_000))));
    expect(r.reason).toBe('is too complex to check: a page has more than 10000 drawing operations (the limit)');
  });

  it("one string of 64 KB, a TJ's array of 12,000 glyph runs, forms drawn 1,000 times: each counted", async () => {
    const long = await withPage((f) => `BT /${f} 8 Tf (${'a'.repeat(64 * 1024)}) Tj ET`);
    expect((await refusal(check(long))).reason).toMatch(/a page has more than 16 KB of text strings \(the limit\)/);
    const runs = await withPage((f) => `BT /${f} 8 Tf [${'(a)1 '.repeat(6000)}] TJ ET`);
    expect((await refusal(check(runs))).reason).toMatch(/a page has more than 10000 drawing operations/);
    const forms = await withPage(
      () => '/Fm Do '.repeat(1000),
      (doc, page) => {
        const form = doc.context.stream('(a) Tj', { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 10, 10] });
        page.setXObject(PDFName.of('Fm'), doc.context.register(form));
      },
    );
    expect((await refusal(check(forms))).reason).toMatch(/a page has more than 10000 drawing operations/);
  });

  it('the glyphs of a Type 3 font (pdf.js runs them to read the text), and forms nested beyond 12', async () => {
    const type3 = await withPage(
      () => 'BT /T3 12 Tf 56 700 Td (a) Tj ET',
      (doc, page) => {
        const glyph = doc.context.register(
          PDFRawStream.of(
            doc.context.obj({ Filter: 'FlateDecode' }) as PDFDict,
            zlib.deflateSync(`1000 0 d0 ${'0 0 m '.repeat(30_000)}f`),
          ),
        );
        const font = doc.context.obj({
          Type: 'Font',
          Subtype: 'Type3',
          FontBBox: [0, 0, 1000, 1000],
          FontMatrix: [0.001, 0, 0, 0.001, 0, 0],
          CharProcs: { a: glyph },
          Encoding: { Type: 'Encoding', Differences: [97, 'a'] },
          FirstChar: 97,
          LastChar: 97,
          Widths: [1000],
        });
        page.setFontDictionary(PDFName.of('T3'), doc.context.register(font));
      },
    );
    expect((await refusal(check(type3))).reason).toMatch(/a Type 3 font has more than 10000 drawing operations/);
    const nested = await withPage(
      () => '/F0 Do',
      (doc, page) => {
        // F0 draws F1, … F19 draws F0: a loop pdf.js stops, and a depth no real form reaches.
        const refs = Array.from({ length: 20 }, () => doc.context.nextRef());
        refs.forEach((ref, i) => {
          const next = `F${(i + 1) % refs.length}`;
          const res = doc.context.obj({ XObject: { [next]: refs[(i + 1) % refs.length]! } });
          doc.context.assign(
            ref,
            doc.context.stream(`/${next} Do`, { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 9, 9], Resources: res }),
          );
        });
        page.setXObject(PDFName.of('F0'), refs[0]!);
      },
    );
    expect((await refusal(check(nested))).reason).toBe(
      'is too complex to check: it draws forms within forms more than 12 deep (the limit)',
    );
  });

  it('a signed revision is read too: its operations count with the final document’s', async () => {
    // The costliest file, digitally signed, then updated once: pdf.js reads the signed revision and the update.
    const signed = Buffer.from(await digitallySigned(await costliestAccepted(mandate)));
    expect(await check(signed)).toMatchObject({ evidence: 'digital-signature' });
    const updated = appendObject(signed, flateObject(zlib.deflateSync(Buffer.from('an update'))));
    expect((await refusal(check(updated))).reason).toMatch(/it has more than 20000 drawing operations \(the limit\)/);
  });

  it('our mandate draws far below the limits: signed or as issued, its verdict is its own', async () => {
    // The limits are 50 times what our mandate draws on a page (about 200 operations, 3 KB of strings, 7 KB).
    expect(await inspectMandate(await inkSigned(mandate), reference)).toEqual({ evidence: 'visible-signature' });
    expect((await refusal(inspectMandate(mandate, reference))).code).toBe('not-signed');
  });
});
