// The structure of an uploaded PDF, walked under limits: every stream decoded within the budget, images counted in
// pixels (also those we do not decode), active content found, where images are drawn on each page, which
// annotations each page carries, and the digital signatures it holds.
import {
  PDFArray, PDFDict, PDFHexString, PDFName, PDFNumber, PDFRawStream, PDFRef, PDFString, type PDFDocument, type PDFObject, type PDFPageLeaf,
} from 'pdf-lib';
import { LimitError, UnreadableError } from './limits';
import { DecodeBudget, filtersOf } from './pdf-decode';
import { loadWithin } from './pdf-load';
import { IDENTITY, interpret, multiply, unitSquareBox, type Matrix } from './pdf-content';
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
  /** annotation subtypes: Ink, Stamp, Link, Widget… */
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
    if (name(obj.dict.lookup(PDFName.of('Subtype'))) === 'Image') {
      pixels += imagePixels(obj, limits.imagePixels, what);
      if (pixels > limits.totalPixels) throw new LimitError(413, `its images have more than ${limits.totalPixels / 1e6} megapixels together (the limit)`);
    }
    decoded.set(obj, budget.decode(obj, what));
  }
  const trailerInfo = doc.context.trailerInfo;
  for (const v of Object.values(trailerInfo)) if (v) visit(doc.context.lookup(v) ?? v, 0);

  const pageCount = doc.getPageCount();
  if (pageCount === 0) throw new UnreadableError('it has no page');
  if (pageCount > limits.pages) throw new LimitError(422, `it has more than ${limits.pages} pages (the limit)`);
  const pages = doc.getPages().map((page) => pageFacts(doc, page.node, decoded, budget, limits));
  return { pages, active: [...active], signatures };
}

function findActive(d: PDFDict, found: Set<string>) {
  const s = name(d.get(PDFName.of('S')));
  if (s === 'JavaScript' || d.has(PDFName.of('JS')) || d.has(PDFName.of('JavaScript'))) found.add('JavaScript');
  if (s === 'Launch') found.add('a launch action');
  if (d.has(PDFName.of('EmbeddedFiles')) || d.has(PDFName.of('EF')) || name(d.get(PDFName.of('Type'))) === 'EmbeddedFile') found.add('an embedded file');
  if (name(d.get(PDFName.of('Subtype'))) === 'FileAttachment') found.add('an embedded file (file attachment annotation)');
  if (d.has(PDFName.of('XFA'))) found.add('an XFA form');
  if (name(d.get(PDFName.of('Subtype'))) === 'RichMedia') found.add('rich media');
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
  const run = (content: Uint8Array, resources: PDFDict | undefined, ctm: Matrix, depth: number) => {
    interpret(content, ctm, {
      operator() {
        if (++operators > limits.operators) throw new LimitError(422, `a page has more than ${limits.operators} drawing operations (the limit)`);
      },
      inlineImage: (m) => drawn(m),
      xobject(xname, m) {
        const xobjects = resources?.lookupMaybe(PDFName.of('XObject'), PDFDict);
        const x = xobjects && ctx.lookup(xobjects.get(PDFName.of(xname)));
        if (!(x instanceof PDFRawStream)) return;
        const subtype = name(x.dict.lookup(PDFName.of('Subtype')));
        if (subtype === 'Image') drawn(m);
        else if (subtype === 'Form' && depth < 12) {
          const fm = x.dict.lookupMaybe(PDFName.of('Matrix'), PDFArray)?.asArray().map((n) => (n instanceof PDFNumber ? n.asNumber() : 0));
          const formMatrix = fm?.length === 6 ? (fm as Matrix) : IDENTITY;
          const body = bytesOf(x);
          if (body) run(body, x.dict.lookupMaybe(PDFName.of('Resources'), PDFDict) ?? resources, multiply(formMatrix, m), depth + 1);
        }
      },
    });
  };
  const contents = node.Contents();
  const parts = contents instanceof PDFArray ? contents.asArray() : [contents];
  const content = Buffer.concat(parts.map((p) => bytesOf(p)).filter((b): b is Uint8Array => !!b).flatMap((b) => [b, Buffer.from('\n')]));
  run(content, node.Resources(), IDENTITY, 0);
  const annotations = (node.Annots()?.asArray() ?? []).map((a) => name(ctx.lookupMaybe(a, PDFDict)?.lookup(PDFName.of('Subtype'))) ?? '?');
  return { imageCoverage: Math.min(1, covered), images, annotations };
}
