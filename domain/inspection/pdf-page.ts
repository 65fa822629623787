// What one page shows: how much of it images cover, how many images larger than a mark it draws, and which
// annotations a reader would show on it — read from its content streams and forms under the walk's budgets. The
// glyphs of the Type 3 fonts it names are read too (pdf.js runs them when it reads the text), once a document:
// only counted.
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
import { LimitError } from './limits';
import type { DecodeBudget } from './pdf-decode';
import type { ContentBudget } from './content-budget';
import { IDENTITY, multiply, unitSquareBox, type Matrix } from './matrix';
import { interpret } from './pdf-content';

const name = (o: PDFObject | undefined) => (o instanceof PDFName ? o.decodeText() : undefined);
/** An image under 200 pt² (about 2.5 cm²) is a mark, not a signature. */
const MIN_IMAGE_AREA = 200;
/** Forms drawn within forms (and glyphs, patterns, soft masks within each other): deeper, the file is refused. */
const MAX_DEPTH = 12;
const NOTHING = () => undefined;

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
  counted: ContentBudget,
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
  /** `o` (or what it refers to) when it is a dictionary; not the dictionary of a stream. */
  const dictOf = (o: PDFObject | undefined) => {
    const d = o instanceof PDFRef ? ctx.lookup(o) : o;
    return d instanceof PDFDict ? d : undefined;
  };
  /** A form, a tiling pattern or a soft mask's group drawn under `m`: its matrix, its resources or the caller's. */
  const drawForm = (
    x: PDFRawStream,
    m: Matrix,
    resources: PDFDict | undefined,
    depth: number,
    paint: (() => void) | undefined,
    glyphs: boolean,
  ) => {
    if (depth >= MAX_DEPTH)
      throw new LimitError('structure', `it draws forms within forms more than ${MAX_DEPTH} deep (the limit)`);
    const fm = x.dict.lookupMaybe(PDFName.of('Matrix'), PDFArray)?.asArray();
    const formMatrix =
      fm?.length === 6 ? (fm.map((n) => (n instanceof PDFNumber ? n.asNumber() : 0)) as Matrix) : IDENTITY;
    const body = bytesOf(x);
    const own = x.dict.lookup(PDFName.of('Resources'));
    if (body) run(body, own instanceof PDFDict ? own : resources, multiply(formMatrix, m), depth + 1, paint, glyphs);
  };
  const resourcesSeen = new Set<PDFDict>();
  /** The glyphs of the Type 3 fonts `resources` name (directly or in a graphics state), once per document. */
  const type3Glyphs = (resources: PDFDict | undefined, depth: number) => {
    if (!resources || resourcesSeen.has(resources)) return;
    resourcesSeen.add(resources);
    const fonts: PDFObject[] = [];
    const fontDict = resources.lookup(PDFName.of('Font'));
    if (fontDict instanceof PDFDict) for (const [, f] of fontDict.entries()) fonts.push(f);
    const states = resources.lookup(PDFName.of('ExtGState'));
    if (states instanceof PDFDict)
      for (const [, g] of states.entries()) {
        const f = dictOf(g)?.lookup(PDFName.of('Font'));
        if (f instanceof PDFArray && f.size() > 0) fonts.push(f.get(0));
      }
    for (const f of fonts) {
      const font = dictOf(f);
      if (!font || counted.fontsSeen.has(font) || name(font.lookup(PDFName.of('Subtype'))) !== 'Type3') continue;
      counted.fontsSeen.add(font);
      if (depth >= MAX_DEPTH)
        throw new LimitError('structure', `it draws fonts within fonts more than ${MAX_DEPTH} deep (the limit)`);
      const procs = dictOf(font.get(PDFName.of('CharProcs')));
      const own = dictOf(font.get(PDFName.of('Resources'))) ?? resources; // pdf.js falls back on the caller's too
      counted.apart('a Type 3 font', () => {
        for (const [, p] of procs?.entries() ?? []) {
          const body = bytesOf(p);
          if (body) run(body, own, IDENTITY, depth + 1, NOTHING, true);
        }
      });
    }
  };
  /**
   * Reads content: counted (bytes before, operators as met), images drawn noted for the page unless `paint` (an
   * annotation's appearance, told whether it paints, or a glyph). `glyphs`: a Type 3 glyph or what it draws, which
   * pdf.js renders whole — its patterns and soft masks too.
   */
  const run = (
    content: Uint8Array,
    resources: PDFDict | undefined,
    ctm: Matrix,
    depth: number,
    paint?: () => void,
    glyphs = false,
  ) => {
    counted.content(content.length);
    type3Glyphs(resources, depth);
    interpret(content, ctm, {
      operator(paints) {
        if (paint && paints) paint();
      },
      cost: (operations, textBytes) => counted.add(operations, textBytes),
      inlineImage: (m) => (paint ? undefined : drawn(m)), // in an annotation's appearance: not the page's images
      xobject(xname, m) {
        const xobjects = resources?.lookup(PDFName.of('XObject'));
        const x = xobjects instanceof PDFDict ? ctx.lookup(xobjects.get(PDFName.of(xname))) : undefined;
        if (!(x instanceof PDFRawStream)) return;
        const subtype = name(x.dict.lookup(PDFName.of('Subtype')));
        if (subtype === 'Image') {
          if (!paint) drawn(m);
        } else if (subtype === 'Form') drawForm(x, m, resources, depth, paint, glyphs);
      },
      resource(kind, rname) {
        if (!glyphs) return; // pdf.js reads a page's text without them
        const named = dictOf(resources?.get(PDFName.of(kind)))?.get(PDFName.of(rname));
        const r = named && ctx.lookup(named);
        if (kind === 'Pattern' && r instanceof PDFRawStream) drawForm(r, ctm, resources, depth, paint, glyphs);
        const group = kind === 'ExtGState' && r instanceof PDFDict ? dictOf(r.get(PDFName.of('SMask'))) : undefined;
        const g = group && ctx.lookup(group.get(PDFName.of('G')));
        if (g instanceof PDFRawStream) drawForm(g, ctm, resources, depth, paint, glyphs);
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
  counted.startPage();
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
