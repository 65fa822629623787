// A mandate signed as a PDF reader's "draw" tool does it: an Ink annotation in the signature box (a visible
// signature, which the pre-signed upload requires: our mandate as issued is refused).
import { PDFDocument } from 'pdf-lib';

export async function inkSigned(pdf: Uint8Array): Promise<Uint8Array> {
  const doc = await PDFDocument.load(pdf);
  const page = doc.getPage(doc.getPageCount() - 1);
  const ink = doc.context.register(doc.context.obj({
    Type: 'Annot', Subtype: 'Ink', Rect: [320, 120, 520, 180], C: [0, 0, 0.5],
    InkList: [[330, 130, 360, 170, 390, 135, 430, 165, 470, 140, 510, 160]],
  }));
  page.node.addAnnot(ink);
  return doc.save();
}
