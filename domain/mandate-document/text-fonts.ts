// The fonts of the mandate's text: Liberation Sans (SIL OFL, shipped with pdfjs-dist), metrically compatible with
// Helvetica, whose place it took. Every font of the mandate is embedded, so that it reads and prints the same
// everywhere (a standard font is the reader's own substitute). Each face is one subset made once per process, of the
// characters a mandate can hold (font-subset.ts), without hinting (font-unhint.ts); what it lacks is drawn as '?'.
// Kerning is left out, as before.
import type { Font } from '@pdf-lib/fontkit';
import { PDFArray, PDFDict, PDFName, PDFRawStream, PDFRef, type PDFDocument } from 'pdf-lib';
import {
  fontFile,
  hex4,
  makeSubset,
  registerSubsetObjects,
  registerType0,
  REPERTOIRE,
  widthsOf,
  type Subset,
  type SubsetObjects,
} from './font-subset';
import { SerialisedObject } from './pdf-raw';

export type Face = 'regular' | 'bold' | 'italic';

const FACES: Record<Face, { file: () => Font; flags: number }> = {
  // Flags: symbolic (4: shown by glyph id), italic (64).
  regular: { file: fontFile('pdfjs-dist/standard_fonts/LiberationSans-Regular.ttf'), flags: 4 },
  bold: { file: fontFile('pdfjs-dist/standard_fonts/LiberationSans-Bold.ttf'), flags: 4 },
  italic: { file: fontFile('pdfjs-dist/standard_fonts/LiberationSans-Italic.ttf'), flags: 4 | 64 },
};

/** A face's subset and what drawing text with it needs, by UTF-16 code unit (the repertoire is in the BMP). */
interface FaceSubset {
  font: Font;
  subset: Subset;
  flags: number;
  /** the glyph id of each character (4 hex digits), undefined for a character the subset lacks */
  hex: (string | undefined)[];
  /** each character's advance per point of size */
  widths: Float64Array;
  /** the W array of every glyph of the subset, serialised */
  W: Buffer;
}

const subsets = new Map<Face, Promise<FaceSubset>>();
const num = (n: number) => String(Math.round(n * 1000) / 1000);

function faceSubset(face: Face): Promise<FaceSubset> {
  let made = subsets.get(face);
  if (!made) {
    const f = FACES[face].file();
    // Each character laid out alone: one glyph, with the character it stands for.
    const laid = REPERTOIRE.map((c) => [c, f.layout(c, { kern: false }).glyphs] as const).filter(
      ([, g]) => g.length === 1 && g[0]!.id !== 0,
    );
    made = makeSubset(
      f,
      laid.map(([, [g]]) => g!),
      { unhinted: true },
    ).then((subset) => {
      const size = Math.max(...laid.map(([c]) => c.charCodeAt(0))) + 1;
      const hex: (string | undefined)[] = new Array(size);
      const widths = new Float64Array(size);
      for (const [c, [g]] of laid) {
        const id = subset.ids.get(g!.id)!;
        hex[c.charCodeAt(0)] = hex4(id);
        widths[c.charCodeAt(0)] = subset.widths[id]! / 1000;
      }
      const W = widthsOf(subset, subset.ids.values()).map((x) =>
        Array.isArray(x) ? `[${x.map(num).join(' ')}]` : num(x),
      );
      return { font: f, subset, flags: FACES[face].flags, hex, widths, W: Buffer.from(`[${W.join(' ')}]`, 'latin1') };
    });
    subsets.set(face, made);
  }
  return made;
}

/** A face of the text font in one document: measures and encodes text, then writes the font with `end()`. */
export class TextFont {
  /** Where the font will be: pages refer to it before it is written. */
  readonly ref: PDFRef;
  private shown = false;
  private ended = false;
  private readonly unknown: string;

  private constructor(
    private readonly doc: PDFDocument,
    private readonly face: FaceSubset,
  ) {
    this.ref = doc.context.nextRef();
    this.unknown = face.hex['?'.charCodeAt(0)]!;
  }

  static async of(doc: PDFDocument, face: Face): Promise<TextFont> {
    return new TextFont(doc, await faceSubset(face));
  }

  /** `text` as this font draws it: composed, each character it lacks (and any control character) a '?'. */
  drawable(text: string): string {
    const composed = text.normalize('NFC');
    for (let i = 0; i < composed.length; i++) {
      if (this.face.hex[composed.charCodeAt(i)] === undefined)
        return [...composed].map((c) => (this.face.hex[c.charCodeAt(0)] && c.length === 1 ? c : '?')).join('');
    }
    return composed;
  }

  /** The advance of drawable text at `size`. */
  width(text: string, size: number): number {
    let w = 0;
    for (let i = 0; i < text.length; i++) w += this.face.widths[text.charCodeAt(i)] ?? 0;
    return w * size;
  }

  /** Drawable text as the glyph ids a page shows (hex). */
  encode(text: string): string {
    this.shown = true;
    let hex = '';
    for (let i = 0; i < text.length; i++) hex += this.face.hex[text.charCodeAt(i)] ?? this.unknown;
    return hex;
  }

  /**
   * Writes the font, if any text was shown with it. The font program is shared with a font of the document that
   * embeds this very subset (the mandate's, when its audit page is added), else embedded.
   */
  end(): void {
    if (this.ended || !this.shown) return;
    this.ended = true;
    const { subset, font, flags, W } = this.face;
    const objects = sharedObjects(this.doc, subset) ?? registerSubsetObjects(this.doc, subset, font, flags);
    registerType0(this.doc, subset, objects, this.doc.context.register(new SerialisedObject(W)), this.ref);
  }
}

/** existingObjects, or none when the document's pages or fonts are not what a PDF should hold (an upload's may not). */
function sharedObjects(doc: PDFDocument, subset: Subset): SubsetObjects | undefined {
  try {
    return existingObjects(doc, subset);
  } catch {
    return undefined;
  }
}

/** The program and ToUnicode CMap of `subset` in a font of the document's pages, when they are ours byte for byte. */
function existingObjects(doc: PDFDocument, subset: Subset): SubsetObjects | undefined {
  const ctx = doc.context;
  const same = (ref: unknown, bytes: Buffer) => {
    const stream = ref instanceof PDFRef ? ctx.lookup(ref) : undefined;
    return stream instanceof PDFRawStream && bytes.equals(stream.contents);
  };
  for (const page of doc.getPages()) {
    const fonts = page.node.Resources()?.lookupMaybe(PDFName.of('Font'), PDFDict);
    for (const value of fonts?.values() ?? []) {
      const dict = ctx.lookup(value);
      if (!(dict instanceof PDFDict) || dict.get(PDFName.of('BaseFont'))?.toString() !== `/${subset.baseFont}`)
        continue;
      const cid = dict.lookupMaybe(PDFName.of('DescendantFonts'), PDFArray)?.lookupMaybe(0, PDFDict);
      const descriptor = cid?.get(PDFName.of('FontDescriptor'));
      const toUnicode = dict.get(PDFName.of('ToUnicode'));
      const program =
        descriptor instanceof PDFRef ? ctx.lookupMaybe(descriptor, PDFDict)?.get(PDFName.of('FontFile2')) : undefined;
      if (
        descriptor instanceof PDFRef &&
        toUnicode instanceof PDFRef &&
        same(program, subset.fontFile) &&
        same(toUnicode, subset.toUnicode)
      ) {
        return { descriptor, toUnicode };
      }
    }
  }
  return undefined;
}
