// What one page shows: how much of it images cover, how many images larger than a mark it draws, and which
// annotations a reader would show on it — read from its content streams and forms under the walk's budgets.
import {
  PDFArray,
  PDFDict,
  PDFName,
  PDFNumber,
  PDFRawStream,
  PDFRef,
  type PDFDocument,
  type PDFObject,
  type PDFPageLeaf,
} from 'pdf-lib';
import { LimitError, type PdfLimits } from './limits';
import type { DecodeBudget } from './pdf-decode';
import { IDENTITY, interpret, multiply, unitSquareBox, type Matrix } from './pdf-content';

const name = (o: PDFObject | undefined) => (o instanceof PDFName ? o.decodeText() : undefined);
/** An image under 200 pt² (about 2.5 cm²) is a mark, not a signature. */
const MIN_IMAGE_AREA = 200;

export interface PageFacts {
  /** the share of the page covered by images (0–1) */
  imageCoverage: number;
  /** images drawn larger than a mark (a signature, a stamp, a logo) */
  images: number;
  /**
   * annotation subtypes: Ink, Stamp, Link, Widget…; an Ink or a Stamp a reader would not show (hidden, too small,
   * off the page, an appearance that draws nothing) is listed as "Ink (not shown)", "Stamp (not shown)"
   */
  annotations: string[];
}

export function pageFacts(
  doc: PDFDocument,
  node: PDFPageLeaf,
  decoded: Map<PDFRawStream, Uint8Array | undefined>,
  budget: DecodeBudget,
  limits: PdfLimits,
  countInline: (content: Uint8Array, what: string, only?: (img: { at: number; id: number }) => boolean) => void,
): PageFacts {
  const ctx = doc.context;
  const box = node
    .MediaBox()
    .asArray()
    .map((n) => (ctx.lookup(n) instanceof PDFNumber ? (ctx.lookup(n) as PDFNumber).asNumber() : 0));
  const [bx0, by0, bx1, by1] = [
    Math.min(box[0]!, box[2]!),
    Math.min(box[1]!, box[3]!),
    Math.max(box[0]!, box[2]!),
    Math.max(box[1]!, box[3]!),
  ];
  const pageArea = Math.max(1, (bx1 - bx0) * (by1 - by0));
  let covered = 0;
  let images = 0;
  let operators = 0;
  const drawn = (ctm: Matrix) => {
    const b = unitSquareBox(ctm);
    const w = Math.max(0, Math.min(b.x1, bx1) - Math.max(b.x0, bx0));
    const h = Math.max(0, Math.min(b.y1, by1) - Math.max(b.y0, by0));
    covered += (w * h) / pageArea;
    if (w * h >= MIN_IMAGE_AREA) images++;
  };
  const bytesOf = (o: PDFObject | undefined): Uint8Array | undefined => {
    const s = o instanceof PDFRef ? ctx.lookup(o) : o;
    if (!(s instanceof PDFRawStream)) return undefined;
    return decoded.has(s) ? decoded.get(s) : budget.decode(s, 'a content stream');
  };
  const run = (content: Uint8Array, resources: PDFDict | undefined, ctm: Matrix, depth: number, paint?: () => void) => {
    interpret(content, ctm, {
      operator(op) {
        if (++operators > limits.operators)
          throw new LimitError('structure', `a page has more than ${limits.operators} drawing operations (the limit)`);
        if (paint && PAINTING.has(op)) paint();
      },
      inlineImage: (m) => (paint ? undefined : drawn(m)), // in an annotation's appearance: not the page's images
      xobject(xname, m) {
        const xobjects = resources?.lookupMaybe(PDFName.of('XObject'), PDFDict);
        const x = xobjects && ctx.lookup(xobjects.get(PDFName.of(xname)));
        if (!(x instanceof PDFRawStream)) return;
        const subtype = name(x.dict.lookup(PDFName.of('Subtype')));
        if (subtype === 'Image') {
          if (!paint) drawn(m);
        } else if (subtype === 'Form' && depth < 12) {
          const fm = x.dict
            .lookupMaybe(PDFName.of('Matrix'), PDFArray)
            ?.asArray()
            .map((n) => (n instanceof PDFNumber ? n.asNumber() : 0));
          const formMatrix = fm?.length === 6 ? (fm as Matrix) : IDENTITY;
          const body = bytesOf(x);
          if (body)
            run(
              body,
              x.dict.lookupMaybe(PDFName.of('Resources'), PDFDict) ?? resources,
              multiply(formMatrix, m),
              depth + 1,
              paint,
            );
        }
      },
    });
  };
  const contents = node.Contents();
  const parts = (contents instanceof PDFArray ? contents.asArray() : [contents])
    .map((p) => bytesOf(p))
    .filter((b): b is Uint8Array => !!b);
  const content = Buffer.concat(parts.flatMap((b) => [b, Buffer.from('\n')]));
  if (parts.length > 1) {
    // Each part's inline images are counted with its stream; here those that begin in one part and end in another.
    const ends: number[] = [];
    parts.reduce((at, b) => (ends.push(at + b.length + 1), at + b.length + 1), 0);
    const partOf = (at: number) => ends.findIndex((e) => at < e);
    countInline(content, 'a page', (img) => partOf(img.at) !== partOf(img.id));
  }
  run(content, node.Resources(), IDENTITY, 0);

  /** Whether a reader shows an Ink or Stamp annotation: not hidden, large enough on the page, drawing something. */
  const numbers = (o: PDFObject | undefined) =>
    o instanceof PDFArray
      ? o.asArray().map((n) => {
          const v = ctx.lookup(n);
          return v instanceof PDFNumber ? v.asNumber() : NaN;
        })
      : undefined;
  const shown = (a: PDFDict, subtype: string): boolean => {
    const f = a.lookup(PDFName.of('F'));
    const flags = f instanceof PDFNumber ? f.asNumber() : 0;
    if (flags & (2 | 32)) return false; // Hidden, NoView
    const r = numbers(a.lookup(PDFName.of('Rect')));
    if (!r || r.length !== 4 || r.some((n) => !Number.isFinite(n))) return false;
    const w = Math.max(0, Math.min(Math.max(r[0]!, r[2]!), bx1) - Math.max(Math.min(r[0]!, r[2]!), bx0));
    const h = Math.max(0, Math.min(Math.max(r[1]!, r[3]!), by1) - Math.max(Math.min(r[1]!, r[3]!), by0));
    if (w * h < MIN_IMAGE_AREA) return false; // too small to be a signature, or off the page
    const ap = a.lookup(PDFName.of('AP'));
    if (ap instanceof PDFDict) {
      let normal = ap.lookup(PDFName.of('N'));
      if (normal instanceof PDFDict) {
        // appearance states: the one /AS names
        const state = a.lookup(PDFName.of('AS'));
        normal = state instanceof PDFName ? normal.lookup(state) : undefined;
      }
      if (!(normal instanceof PDFRawStream)) return false;
      const bbox = numbers(normal.dict.lookup(PDFName.of('BBox')));
      if (!bbox || bbox.length !== 4 || !((bbox[2]! - bbox[0]!) * (bbox[3]! - bbox[1]!))) return false;
      const body = bytesOf(normal);
      if (!body) return false;
      const res = normal.dict.lookup(PDFName.of('Resources'));
      let painted = false;
      run(body, res instanceof PDFDict ? res : undefined, IDENTITY, 1, () => {
        painted = true;
      });
      return painted;
    }
    if (flags & 1) return false; // Invisible, with no appearance of its own
    if (subtype !== 'Ink') return false; // a Stamp draws only its appearance
    const inkList = a.lookup(PDFName.of('InkList'));
    return (
      inkList instanceof PDFArray && inkList.asArray().some((path) => (numbers(ctx.lookup(path))?.length ?? 0) >= 2)
    );
  };
  const annotations = (node.Annots()?.asArray() ?? []).map((ref) => {
    const a = ctx.lookup(ref);
    if (!(a instanceof PDFDict)) return '?';
    const subtype = name(a.lookup(PDFName.of('Subtype'))) ?? '?';
    if ((subtype === 'Ink' || subtype === 'Stamp') && !shown(a, subtype)) return `${subtype} (not shown)`;
    return subtype;
  });
  return { imageCoverage: Math.min(1, covered), images, annotations };
}

/** Operators that paint: paths stroked or filled, text, images and forms, shadings. */
const PAINTING = new Set(['S', 's', 'f', 'F', 'f*', 'B', 'B*', 'b', 'b*', 'Tj', 'TJ', "'", '"', 'Do', 'BI', 'sh']);
