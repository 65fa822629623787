import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { pdfMentions } from '../../signing/uploads';

async function pdf(text: string, title?: string) {
  const doc = await PDFDocument.create();
  if (title) doc.setTitle(title);
  doc.addPage().drawText(text);
  return PDFDocument.load(await doc.save()); // as uploaded: parsed back from bytes
}

describe('finding our mandate number in an uploaded PDF', () => {
  const number = '552032534_0145_20261122_01';
  it('in the page text, even without metadata', async () => {
    expect(pdfMentions(await pdf(`Mandat n° ${number}`), [number])).toBe(true);
  });
  it('in the metadata', async () => {
    expect(pdfMentions(await pdf('signed', `Mandat ${number}`), [number])).toBe(true);
  });
  it('not when the PDF carries another number', async () => {
    expect(pdfMentions(await pdf('Mandat n° 552032534_0145_20261122_02'), [number])).toBe(false);
  });
});
