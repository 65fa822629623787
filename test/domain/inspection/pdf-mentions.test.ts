// Finding our mandate number in an uploaded PDF: in the text a reader shows (pdf.js), not in raw bytes or metadata.
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { pdfText, textCarries } from '../../../domain/inspection/pdf-text';

async function pdf(text: string, title?: string) {
  const doc = await PDFDocument.create();
  if (title) doc.setTitle(title);
  doc.addPage().drawText(text);
  return doc.save();
}

const mentions = async (bytes: Uint8Array, number: string) => textCarries(await pdfText(bytes, 50), number);

describe('finding our mandate number in an uploaded PDF', () => {
  const number = '552032534_0145_20261122_01';
  it('in the page text, even without metadata', async () => {
    expect(await mentions(await pdf(`Mandat n° ${number}`), number)).toBe(true);
  });
  it('not when only the metadata carries it: a title is not the document', async () => {
    expect(await mentions(await pdf('signed', `Mandat ${number}`), number)).toBe(false);
  });
  it('not when the PDF carries another number', async () => {
    expect(await mentions(await pdf('Mandat n° 552032534_0145_20261122_02'), number)).toBe(false);
  });
});
