// The costliest pre-signed mandate the limits on drawing instructions accept (domain/inspection/limits.ts): our
// mandate, signed with ink, and as many pages as allowed, each filled with what costs pdf.js most to read for the
// text per operation counted: `(abc)'`, a move to the next line and a string shown, a new text item each time.
// Cheapest to send: the whole file, deflated, is a few tens of kilobytes.
import zlib from 'node:zlib';
import { PDFDict, PDFDocument, PDFName, PDFRawStream, StandardFonts } from 'pdf-lib';
import { PDF_LIMITS } from '../../domain/inspection/limits';
import { STREAM_OPERATIONS } from '../../domain/inspection/content-budget';
import { inkSigned } from './signed-pdf';

/** What our signed mandate itself draws, at most (about 200 operations, 3 KB of strings): left to it. */
const MANDATE = { operations: 400, textBytes: 4096 };

/**
 * Our mandate (`pdf`, as issued), signed with ink, then `pages` pages (all the limit allows by default), each with
 * `(…)'` repeated up to the page's and the document's limits of operations (each counts 2) and of strings, so that
 * `scale` × the limits is drawn (1: the costliest accepted; above 1, over a limit).
 */
export async function costliestAccepted(pdf: Uint8Array, scale = 1, pages?: number): Promise<Uint8Array> {
  const doc = await PDFDocument.load(await inkSigned(pdf));
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const n = pages ?? PDF_LIMITS.pages - doc.getPageCount();
  const perPage = (limit: number, pageLimit: number, mandate: number) =>
    Math.min(pageLimit, Math.floor((limit - mandate) / n)) * scale;
  const PAGE_OVERHEAD = 20 + STREAM_OPERATIONS; // BT, TL, Td, ET, the text drawn above (about 14), the stream
  const quotes = Math.floor(
    (perPage(PDF_LIMITS.operators, PDF_LIMITS.pageOperators, MANDATE.operations) - PAGE_OVERHEAD) / 2,
  );
  const text = Math.max(
    1,
    Math.floor((perPage(PDF_LIMITS.textBytes, PDF_LIMITS.pageTextBytes, MANDATE.textBytes) - 64) / quotes),
  );
  for (let p = 0; p < n; p++) {
    const page = doc.addPage([595.28, 841.89]);
    page.drawText('Annexe', { font, size: 10, x: 56, y: 800 }); // names the font in the page's resources
    const name = (page.node.Resources()!.lookup(PDFName.of('Font'), PDFDict).keys()[0] as PDFName).decodeText();
    const body = `BT /${name} 8 Tf 10 TL 56 780 Td ${`(${'a'.repeat(text)})' `.repeat(quotes)}ET`;
    const stream = PDFRawStream.of(
      doc.context.obj({ Filter: 'FlateDecode' }) as PDFDict,
      zlib.deflateSync(Buffer.from(body, 'latin1'), { level: 9 }),
    );
    page.node.addContentStream(doc.context.register(stream));
  }
  return doc.save();
}
