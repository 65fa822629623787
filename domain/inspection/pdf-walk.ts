// The structure of an uploaded PDF, walked under limits: every stream decoded within the budget, images counted in
// pixels (also those we do not decode), active content found, where images are drawn on each page, which
// annotations each page carries, and the digital signatures it holds.
import {
  PDFArray,
  PDFDict,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFRawStream,
  PDFString,
  type PDFObject,
  type PDFPageLeaf,
} from 'pdf-lib';
import { LimitError, UnreadableError, type PdfLimits } from './limits';
export type { PdfLimits };
import { DecodeBudget, filtersOf } from './pdf-decode';
import { loadWithin } from './pdf-load';
import { ContentBudget } from './content-budget';
import { inlineImages } from './inline-images';
import { pageFacts, type PageFacts } from './pdf-page';

export type { PageFacts };
import { imageCodecPixels } from './image-headers';
import { findActive } from './pdf-actions';

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

/** `counted`: what reading content cost so far, when walks share the document's limits (a signed revision's). */
export async function walkPdf(
  bytes: Uint8Array,
  limits: PdfLimits,
  counted = new ContentBudget(limits),
): Promise<PdfFacts> {
  const budget = new DecodeBudget(limits.streamBytes, limits.totalBytes);
  const doc = await loadWithin(bytes, budget, limits.objects);
  const objects = doc.context.enumerateIndirectObjects();
  if (objects.length > limits.objects)
    throw new LimitError('structure', `it has more than ${limits.objects} objects (the limit)`);

  const active = new Set<string>();
  const signatures: PdfSignature[] = [];
  const decoded = new Map<PDFRawStream, Uint8Array | undefined>();
  let pixels = 0;
  const countPixels = (n: number) => {
    pixels += n;
    if (pixels > limits.totalPixels)
      throw new LimitError(
        'size',
        `its images have more than ${limits.totalPixels / 1e6} megapixels together (the limit)`,
      );
  };
  /** Inline images (BI … ID … EI, in any content stream: a page's, a form's, a pattern's, a glyph's) count as images. */
  const countInline = (content: Uint8Array, what: string, only?: (img: { at: number; id: number }) => boolean) => {
    const tooMuch = (): never => {
      throw new LimitError('structure', `${what} has more inline-image markers (BI) than can be checked`);
    };
    for (const img of inlineImages(content, tooMuch)) {
      if (only && !only(img)) continue;
      if (img.pixels > limits.imagePixels) {
        throw new LimitError(
          'size',
          `${what} has an inline image of ${(img.pixels / 1e6).toFixed(1)} megapixels, over the limit of ${limits.imagePixels / 1e6}`,
        );
      }
      countPixels(img.pixels);
    }
  };
  let values = 0;
  const visit = (o: PDFObject, depth: number) => {
    if (depth > 64) throw new UnreadableError('its objects are nested too deeply');
    if (++values > limits.values)
      throw new LimitError('structure', `its objects hold more than ${limits.values} values (the limit)`);
    const dict = o instanceof PDFRawStream ? o.dict : o instanceof PDFDict ? o : undefined;
    if (dict) {
      findActive(dict, active);
      const sig = signatureOf(dict);
      if (sig && signatures.push(sig) > limits.signatures)
        throw new LimitError('structure', `it has more than ${limits.signatures} digital signatures (the limit)`);
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
    if (pageCount > limits.pages)
      throw new LimitError('structure', `it has more than ${limits.pages} pages (the limit)`);
    leaves = doc.getPages().map((page) => page.node);
  } catch (err) {
    // pdf-lib walks the page tree recursively: a tree that loops (a page's parent among its kids) overflows the stack.
    if (err instanceof RangeError) throw new UnreadableError('its structure loops or is nested too deeply');
    // A catalog or page tree of the wrong types (a number for /Pages…) fails in pdf-lib as a TypeError on its names.
    if (err instanceof TypeError) throw new UnreadableError('its catalog or page tree is malformed');
    throw err;
  }
  const pages = leaves.map((node) => pageFacts(doc, node, decoded, budget, counted, countInline));
  return { pages, active: [...active], signatures };
}

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
  if (pixels > max)
    throw new LimitError(
      'size',
      `${what} is an image of ${(pixels / 1e6).toFixed(1)} megapixels, over the limit of ${max / 1e6}`,
    );
  return pixels;
}
