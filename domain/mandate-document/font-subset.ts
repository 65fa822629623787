// TrueType subsets embedded as Type 0 fonts (ISO 32000-1 §9.7): shown by glyph id, read back through a ToUnicode
// CMap. Shared by the body text (text-fonts.ts) and the typed signature's handwriting (fonts.ts). A subset is made
// once and its bytes kept: a document only adds them to its file, with widths for the glyphs it shows.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import zlib from 'node:zlib';
import fontkit, { type Font, type Glyph } from '@pdf-lib/fontkit';
import { PDFString, type PDFDocument, type PDFObject, type PDFRef } from 'pdf-lib';
import { withoutGlyphInstructions } from './font-unhint';
import { StoredStream } from './pdf-stream';

const require = createRequire(import.meta.url);

/** A font file of an installed package, parsed once. */
export function fontFile(file: string): () => Font {
  let parsed: Font | undefined;
  return () => (parsed ??= fontkit.create(fs.readFileSync(require.resolve(file))));
}

/** The characters every subset holds when its font has them: printable Latin-1 and what French typography adds. */
export const REPERTOIRE = [
  ...Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)),
  ...Array.from({ length: 0x100 - 0xa0 }, (_, i) => String.fromCharCode(0xa0 + i)),
  ...'ŒœŠšŸŽž‘’‚“”„«»‹›–—…•€',
];

/** A subset ready to embed: what every document using it gets, byte for byte. */
export interface Subset {
  baseFont: string;
  fontFile: Buffer; // deflated
  fontFileLength: number;
  toUnicode: Buffer; // deflated
  /** subset glyph id → advance width (1/1000 em), from 0 (.notdef) */
  widths: number[];
  /** font glyph id → subset glyph id */
  ids: Map<number, number>;
}

export const hex4 = (n: number) => n.toString(16).padStart(4, '0');

/** The ToUnicode CMap giving the text each subset glyph id stands for (at most 100 entries a block). */
function toUnicode(glyphs: Glyph[], ids: Map<number, number>): string {
  const utf16 = (cps: number[]) => {
    const text = String.fromCodePoint(...cps);
    return Array.from({ length: text.length }, (_, i) => hex4(text.charCodeAt(i))).join('');
  };
  const entries = glyphs
    .filter((g) => g.codePoints.length)
    .map((g) => `<${hex4(ids.get(g.id)!)}> <${utf16(g.codePoints)}>`);
  const blocks: string[] = [];
  for (let i = 0; i < entries.length; i += 100) {
    const block = entries.slice(i, i + 100);
    blocks.push(`${block.length} beginbfchar\n${block.join('\n')}\nendbfchar`);
  }
  return [
    '/CIDInit /ProcSet findresource begin',
    '12 dict begin',
    'begincmap',
    '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def',
    '/CMapName /Adobe-Identity-UCS def',
    '/CMapType 2 def',
    '1 begincodespacerange',
    '<0000> <ffff>',
    'endcodespacerange',
    ...blocks,
    'endcmap',
    'CMapName currentdict /CMap defineresource pop',
    'end',
    'end',
  ].join('\n');
}

/**
 * A subset of the font holding `glyphs` (from a layout, with the text they stand for), encoded once; `unhinted`
 * without the glyphs' instructions (font-unhint.ts).
 */
export async function makeSubset(f: Font, all: Glyph[], options: { unhinted?: boolean } = {}): Promise<Subset> {
  // A glyph standing for several characters (space and no-break space) keeps the text it was first seen for.
  const byId = new Map<number, Glyph>();
  for (const g of all) if (!byId.has(g.id)) byId.set(g.id, g);
  const glyphs = [...byId.values()];
  const subset = f.createSubset();
  const ids = new Map(glyphs.map((g) => [g.id, subset.includeGlyph(g)]));
  const encoded = await new Promise<Buffer>((resolve, reject) => {
    const parts: Uint8Array[] = [];
    (subset.encodeStream() as unknown as NodeJS.EventEmitter)
      .on('data', (d: Uint8Array) => parts.push(d))
      .on('end', () => resolve(Buffer.concat(parts)))
      .on('error', reject);
  });
  const bytes = options.unhinted ? withoutGlyphInstructions(encoded) : encoded;
  const scale = 1000 / f.unitsPerEm;
  const widths = [f.getGlyph(0).advanceWidth * scale];
  for (const g of glyphs) widths[ids.get(g.id)!] = g.advanceWidth * scale;
  // A subset's name starts with a tag of six capitals (ISO 32000-1 §9.6.4), here derived from its glyphs.
  const digest = crypto.createHash('sha256').update(Uint32Array.from(ids.keys())).digest();
  const tag = String.fromCharCode(...digest.subarray(0, 6).map((b) => 65 + (b % 26)));
  return {
    baseFont: `${tag}+${f.postscriptName ?? 'Font'}`,
    fontFile: zlib.deflateSync(bytes),
    fontFileLength: bytes.length,
    toUnicode: zlib.deflateSync(toUnicode(glyphs, ids)),
    widths,
    ids,
  };
}

/**
 * The widths of the glyphs `ids` as a CIDFont's W array: `first [w1 w2 …]` for each run of consecutive ids. Only
 * the glyphs the document shows need one (a long array is most of the time spent parsing the mandate back).
 */
export function widthsOf(s: Subset, ids: Iterable<number>): (number | number[])[] {
  const w: (number | number[])[] = [];
  let run: number[] = [];
  let next = -1;
  for (const id of [...new Set(ids)].sort((a, b) => a - b)) {
    if (id !== next) w.push(id, (run = []));
    run.push(s.widths[id] ?? 0);
    next = id + 1;
  }
  return w;
}

/** The font program and its descriptor, and the ToUnicode CMap: what two fonts over the same subset can share. */
export interface SubsetObjects {
  descriptor: PDFRef;
  toUnicode: PDFRef;
}

export function registerSubsetObjects(doc: PDFDocument, s: Subset, f: Font, flags: number): SubsetObjects {
  const ctx = doc.context;
  const scale = 1000 / f.unitsPerEm;
  const fontFile = ctx.register(
    new StoredStream(ctx.obj({ Filter: 'FlateDecode', Length1: s.fontFileLength }), s.fontFile),
  );
  const descriptor = ctx.register(
    ctx.obj({
      Type: 'FontDescriptor',
      FontName: s.baseFont,
      Flags: flags,
      FontBBox: [f.bbox.minX, f.bbox.minY, f.bbox.maxX, f.bbox.maxY].map((v) => v * scale),
      ItalicAngle: f.italicAngle,
      Ascent: f.ascent * scale,
      Descent: f.descent * scale,
      CapHeight: (f.capHeight || f.ascent) * scale,
      XHeight: (f.xHeight || 0) * scale,
      StemV: 0,
      FontFile2: fontFile,
    }),
  );
  return { descriptor, toUnicode: ctx.register(new StoredStream(ctx.obj({ Filter: 'FlateDecode' }), s.toUnicode)) };
}

/** The Type 0 font over the subset's `objects`, with the glyph widths `W` (see widthsOf), at `ref` if given. */
export function registerType0(doc: PDFDocument, s: Subset, objects: SubsetObjects, W: PDFObject, ref?: PDFRef): PDFRef {
  const ctx = doc.context;
  const cidFont = ctx.register(
    ctx.obj({
      Type: 'Font',
      Subtype: 'CIDFontType2',
      BaseFont: s.baseFont,
      CIDToGIDMap: 'Identity',
      CIDSystemInfo: { Registry: PDFString.of('Adobe'), Ordering: PDFString.of('Identity'), Supplement: 0 },
      FontDescriptor: objects.descriptor,
      W,
    }),
  );
  const dict = ctx.obj({
    Type: 'Font',
    Subtype: 'Type0',
    BaseFont: s.baseFont,
    Encoding: 'Identity-H',
    DescendantFonts: [cidFont],
    ToUnicode: objects.toUnicode,
  });
  if (!ref) return ctx.register(dict);
  ctx.assign(ref, dict);
  return ref;
}
