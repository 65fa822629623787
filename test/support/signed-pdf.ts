// A mandate signed as a PDF reader's "draw" tool does it: an Ink annotation in the signature box with its normal
// appearance (the stroke drawn, as readers save it), a visible signature, which the pre-signed upload requires: our
// mandate as issued is refused.
import { PDFDocument } from 'pdf-lib';

export async function inkSigned(pdf: Uint8Array): Promise<Uint8Array> {
  const doc = await PDFDocument.load(pdf);
  const page = doc.getPage(doc.getPageCount() - 1);
  const points = [330, 130, 360, 170, 390, 135, 430, 165, 470, 140, 510, 160];
  const path = points.reduce((ops, n, i) => (i % 2 ? `${ops} ${n} ${i === 1 ? 'm' : 'l'}` : `${ops} ${n}`), '');
  const appearance = doc.context.register(
    doc.context.stream(`q 0 0 0.5 RG 1.5 w 1 J 1 j${path} S Q`, {
      Type: 'XObject',
      Subtype: 'Form',
      BBox: [320, 120, 520, 180],
    }),
  );
  const ink = doc.context.register(
    doc.context.obj({
      Type: 'Annot',
      Subtype: 'Ink',
      Rect: [320, 120, 520, 180],
      C: [0, 0, 0.5],
      F: 4,
      InkList: [points],
      AP: { N: appearance },
    }),
  );
  page.node.addAnnot(ink);
  return doc.save();
}
