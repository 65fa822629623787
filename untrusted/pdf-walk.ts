// The structure of an uploaded PDF, walked under limits: every stream decoded within the budget, images counted in
// pixels (also those we do not decode), active content found, where images are drawn on each page, which
// annotations each page carries, and the digital signatures it holds.
import {
  PDFArray, PDFDict, PDFHexString, PDFName, PDFNumber, PDFRawStream, PDFRef, PDFString, type PDFDocument, type PDFObject, type PDFPageLeaf,
} from 'pdf-lib';
import { LimitError, UnreadableError } from './limits';
import { DecodeBudget, filtersOf } from './pdf-decode';
import { loadWithin } from './pdf-load';
import { IDENTITY, inlineImages, interpret, multiply, unitSquareBox, type Matrix } from './pdf-content';
import { imageCodecPixels } from './image-headers';

export interface PdfLimits {
  streamBytes: number;
  totalBytes: number;
  objects: number;
  values: number;
  pages: number;
  imagePixels: number;
  totalPixels: number;
  operators: number;
}

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

export interface PdfSignature {
  byteRange: number[];
  contents: Uint8Array;
}

export interface PdfFacts {
  pages: PageFacts[];
  /** the active content found, named for the signer: "JavaScript", "a launch action"… */
  active: string[];
  signatures: PdfSignature[];
}

const name = (o: PDFObject | undefined) => (o instanceof PDFName ? o.decodeText() : undefined);
/** An image under 200 pt² (about 2.5 cm²) is a mark, not a signature. */
const MIN_IMAGE_AREA = 200;

export async function walkPdf(bytes: Uint8Array, limits: PdfLimits): Promise<PdfFacts> {
  const budget = new DecodeBudget(limits.streamBytes, limits.totalBytes);
  const doc = await loadWithin(bytes, budget, limits.objects);
  const objects = doc.context.enumerateIndirectObjects();
  if (objects.length > limits.objects) throw new LimitError(422, `it has more than ${limits.objects} objects (the limit)`);

  const active = new Set<string>();
  const signatures: PdfSignature[] = [];
  const decoded = new Map<PDFRawStream, Uint8Array | undefined>();
  let pixels = 0;
  const countPixels = (n: number) => {
    pixels += n;
    if (pixels > limits.totalPixels) throw new LimitError(413, `its images have more than ${limits.totalPixels / 1e6} megapixels together (the limit)`);
  };
  /** Inline images (BI … ID … EI, in any content stream: a page's, a form's, a pattern's, a glyph's) count as images. */
  const countInline = (content: Uint8Array, what: string, only?: (img: { at: number; id: number }) => boolean) => {
    const tooMuch = (): never => { throw new LimitError(422, `${what} has more inline-image markers (BI) than can be checked`); };
    for (const img of inlineImages(content, tooMuch)) {
      if (only && !only(img)) continue;
      if (img.pixels > limits.imagePixels) {
        throw new LimitError(413, `${what} has an inline image of ${(img.pixels / 1e6).toFixed(1)} megapixels, over the limit of ${limits.imagePixels / 1e6}`);
      }
      countPixels(img.pixels);
    }
  };
  let values = 0;
  const visit = (o: PDFObject, depth: number) => {
    if (depth > 64) throw new UnreadableError('its objects are nested too deeply');
    if (++values > limits.values) throw new LimitError(422, `its objects hold more than ${limits.values} values (the limit)`);
    const dict = o instanceof PDFRawStream ? o.dict : o instanceof PDFDict ? o : undefined;
    if (dict) {
      findActive(dict, active);
      const sig = signatureOf(dict);
      if (sig) signatures.push(sig);
      for (const [, v] of dict.entries()) visit(v, depth + 1);
    } else if (o instanceof PDFArray) for (const v of o.asArray()) visit(v, depth + 1);
  };
  for (const [ref, obj] of objects) {
    visit(obj, 0);
    if (!(obj instanceof PDFRawStream)) continue;
    const what = `stream ${ref.objectNumber}`;
    const image = name(obj.dict.lookup(PDFName.of('Subtype'))) === 'Image';
    if (image) countPixels(imagePixels(obj, limits.imagePixels, what));
    const body = budget.decode(obj, what);
    decoded.set(obj, body);
    if (body && !image && !notContent(obj.dict)) countInline(body, what);
  }
  const trailerInfo = doc.context.trailerInfo;
  for (const v of Object.values(trailerInfo)) if (v) visit(doc.context.lookup(v) ?? v, 0);

  let pageCount: number;
  let leaves: PDFPageLeaf[];
  try {
    pageCount = doc.getPageCount();
    if (pageCount === 0) throw new UnreadableError('it has no page');
    if (pageCount > limits.pages) throw new LimitError(422, `it has more than ${limits.pages} pages (the limit)`);
    leaves = doc.getPages().map((page) => page.node);
  } catch (err) {
    // pdf-lib walks the page tree recursively: a tree that loops (a page's parent among its kids) overflows the stack.
    if (err instanceof RangeError) throw new UnreadableError('its structure loops or is nested too deeply');
    // A catalog or page tree of the wrong types (a number for /Pages…) fails in pdf-lib as a TypeError on its names.
    if (err instanceof TypeError) throw new UnreadableError('its catalog or page tree is malformed');
    throw err;
  }
  const pages = leaves.map((node) => pageFacts(doc, node, decoded, budget, limits, countInline));
  return { pages, active: [...active], signatures };
}

function findActive(d: PDFDict, found: Set<string>) {
  const s = name(d.get(PDFName.of('S')));
  if (s === 'JavaScript' || d.has(PDFName.of('JS')) || d.has(PDFName.of('JavaScript'))) found.add('JavaScript');
  if (s === 'Launch') found.add('a launch action');
  if (s === 'SubmitForm') found.add('a form submission');
  if (s === 'ImportData') found.add('a data import');
  if (s === 'GoToR' || s === 'GoToE') found.add(`a link to another file (${s})`);
  if (s === 'Rendition' || s === 'Sound' || s === 'Movie') found.add(`media (${s})`);
  if (s === 'URI') {
    const uri = d.lookup(PDFName.of('URI'));
    const text = uri instanceof PDFString || uri instanceof PDFHexString ? Buffer.from(uri.asBytes()).toString('latin1') : undefined;
    // A web address opens in a browser; anything else (javascript:, file:, a UNC path, data:…) is refused.
    if (text === undefined || !/^https?:\/\//i.test(text)) found.add(`a link that is not a web address (${uriKind(text)})`);
  }
  if (d.has(PDFName.of('EmbeddedFiles')) || d.has(PDFName.of('EF')) || name(d.get(PDFName.of('Type'))) === 'EmbeddedFile') found.add('an embedded file');
  if (name(d.get(PDFName.of('Subtype'))) === 'FileAttachment') found.add('an embedded file (file attachment annotation)');
  if (d.has(PDFName.of('XFA'))) found.add('an XFA form');
  if (name(d.get(PDFName.of('Subtype'))) === 'RichMedia') found.add('rich media');
  // Actions that run by themselves, on opening or on a page's or a field's events: only a plain GoTo is allowed.
  const open = d.lookup(PDFName.of('OpenAction'));
  if (open instanceof PDFDict) automatic(open, 'an action on opening', found);
  const aa = d.lookup(PDFName.of('AA'));
  if (aa instanceof PDFDict) for (const [, a] of aa.entries()) automatic(aa.context.lookup(a), 'an automatic action', found);
}

/** An action run without a click, and the actions it chains (/Next): refused unless all are GoTo. */
function automatic(action: PDFObject | undefined, what: string, found: Set<string>) {
  const seen = new Set<PDFObject>();
  const queue = [action];
  while (queue.length && seen.size < 64) {
    const a = queue.shift();
    if (!(a instanceof PDFDict) || seen.has(a)) continue;
    seen.add(a);
    const s = name(a.lookup(PDFName.of('S')));
    if (s !== 'GoTo' && !NAMED.has(s ?? '')) found.add(`${what} (${s ?? 'unnamed'})`);
    const next = a.lookup(PDFName.of('Next'));
    if (next instanceof PDFArray) queue.push(...next.asArray().map((n) => a.context.lookup(n)));
    else queue.push(next);
  }
}

/** Actions refused wherever they are, named for what they do. */
const NAMED = new Set(['JavaScript', 'Launch', 'SubmitForm', 'ImportData', 'GoToR', 'GoToE', 'Rendition', 'Sound', 'Movie']);

const uriKind = (uri: string | undefined) => {
  if (!uri) return 'no address';
  const scheme = /^\s*([a-z][a-z0-9+.-]{0,15}):/i.exec(uri)?.[1];
  if (scheme) return `${scheme.toLowerCase()}:`;
  return /^\s*[\\/]/.test(uri) ? 'a file path' : 'a relative address';
};

/** Streams that are not content streams (fonts, metadata, files): not searched for inline images. */
function notContent(d: PDFDict): boolean {
  const type = name(d.lookup(PDFName.of('Type')));
  const subtype = name(d.lookup(PDFName.of('Subtype')));
  if (type === 'Metadata' || type === 'EmbeddedFile' || type === 'ObjStm' || type === 'XRef') return true;
  if (subtype === 'XML' || subtype === 'Type1C' || subtype === 'CIDFontType0C' || subtype === 'OpenType') return true;
  return d.has(PDFName.of('Length1')) || d.has(PDFName.of('Length2')) || d.has(PDFName.of('Length3'));
}

function signatureOf(d: PDFDict): PdfSignature | undefined {
  const range = d.lookupMaybe(PDFName.of('ByteRange'), PDFArray);
  const contents = d.get(PDFName.of('Contents'));
  if (!range || !(contents instanceof PDFHexString || contents instanceof PDFString)) return undefined;
  const byteRange = range.asArray().map((n) => (n instanceof PDFNumber ? n.asNumber() : NaN));
  return { byteRange, contents: contents.asBytes() };
}

/** Width × height of an image XObject; for codecs we do not decode, the larger of the dictionary's and the codec's. */
function imagePixels(img: PDFRawStream, max: number, what: string): number {
  const num = (k: string) => img.dict.lookupMaybe(PDFName.of(k), PDFNumber)?.asNumber() ?? 0;
  const declared = Math.max(0, num('Width')) * Math.max(0, num('Height'));
  const filters = filtersOf(img);
  const codec = filters.at(-1) ?? '';
  const inner = filters.length === 1 ? imageCodecPixels(codec, img.contents) : 0;
  const pixels = Math.max(declared, inner);
  if (pixels > max) throw new LimitError(413, `${what} is an image of ${(pixels / 1e6).toFixed(1)} megapixels, over the limit of ${max / 1e6}`);
  return pixels;
}

function pageFacts(
  doc: PDFDocument, node: PDFPageLeaf,
  decoded: Map<PDFRawStream, Uint8Array | undefined>, budget: DecodeBudget, limits: PdfLimits,
  countInline: (content: Uint8Array, what: string, only?: (img: { at: number; id: number }) => boolean) => void,
): PageFacts {
  const ctx = doc.context;
  const box = node.MediaBox().asArray().map((n) => (ctx.lookup(n) instanceof PDFNumber ? (ctx.lookup(n) as PDFNumber).asNumber() : 0));
  const [bx0, by0, bx1, by1] = [Math.min(box[0]!, box[2]!), Math.min(box[1]!, box[3]!), Math.max(box[0]!, box[2]!), Math.max(box[1]!, box[3]!)];
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
        if (++operators > limits.operators) throw new LimitError(422, `a page has more than ${limits.operators} drawing operations (the limit)`);
        if (paint && PAINTING.has(op)) paint();
      },
      inlineImage: (m) => (paint ? undefined : drawn(m)), // in an annotation's appearance: not the page's images
      xobject(xname, m) {
        const xobjects = resources?.lookupMaybe(PDFName.of('XObject'), PDFDict);
        const x = xobjects && ctx.lookup(xobjects.get(PDFName.of(xname)));
        if (!(x instanceof PDFRawStream)) return;
        const subtype = name(x.dict.lookup(PDFName.of('Subtype')));
        if (subtype === 'Image') { if (!paint) drawn(m); }
        else if (subtype === 'Form' && depth < 12) {
          const fm = x.dict.lookupMaybe(PDFName.of('Matrix'), PDFArray)?.asArray().map((n) => (n instanceof PDFNumber ? n.asNumber() : 0));
          const formMatrix = fm?.length === 6 ? (fm as Matrix) : IDENTITY;
          const body = bytesOf(x);
          if (body) run(body, x.dict.lookupMaybe(PDFName.of('Resources'), PDFDict) ?? resources, multiply(formMatrix, m), depth + 1, paint);
        }
      },
    });
  };
  const contents = node.Contents();
  const parts = (contents instanceof PDFArray ? contents.asArray() : [contents]).map((p) => bytesOf(p)).filter((b): b is Uint8Array => !!b);
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
    o instanceof PDFArray ? o.asArray().map((n) => { const v = ctx.lookup(n); return v instanceof PDFNumber ? v.asNumber() : NaN; }) : undefined;
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
      if (normal instanceof PDFDict) { // appearance states: the one /AS names
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
      run(body, res instanceof PDFDict ? res : undefined, IDENTITY, 1, () => { painted = true; });
      return painted;
    }
    if (flags & 1) return false; // Invisible, with no appearance of its own
    if (subtype !== 'Ink') return false; // a Stamp draws only its appearance
    const inkList = a.lookup(PDFName.of('InkList'));
    return inkList instanceof PDFArray && inkList.asArray().some((path) => (numbers(ctx.lookup(path))?.length ?? 0) >= 2);
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
