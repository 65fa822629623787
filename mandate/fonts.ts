// The handwriting font of typed signatures (Dancing Script, SIL OFL; the TrueType file of @expo-google-fonts),
// embedded as a subset. The subset is made once, for the characters a name can hold on the mandate (Latin-1, the
// French typographic letters and the ligatures the font forms from them), and its bytes are kept: a mandate only
// adds them to its file. A name needing other glyphs gets a subset of its own, made for it as before.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import zlib from 'node:zlib';
import fontkit, { type Font, type Glyph } from '@pdf-lib/fontkit';
import { PDFString, type PDFDocument, type PDFRef } from 'pdf-lib';
import { StoredStream } from './pdf-stream';
import { ligatureShaper, type Shaper } from './shaping';

const require = createRequire(import.meta.url);
const FILE = '@expo-google-fonts/dancing-script/400Regular/DancingScript_400Regular.ttf';

/** The characters of the shared subset: printable Latin-1 and what French typography adds to it. */
const REPERTOIRE = [
  ...Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)),
  ...Array.from({ length: 0x100 - 0xa0 }, (_, i) => String.fromCharCode(0xa0 + i)),
  ...'ŒœŠšŸŽž‘’‚“”„«»‹›–—…•€',
];

/** A subset ready to embed: what every document using it gets, byte for byte. */
interface Subset {
  baseFont: string;
  fontFile: Buffer; // deflated
  fontFileLength: number;
  toUnicode: Buffer; // deflated
  /** subset glyph id → advance width (1/1000 em), from 0 (.notdef) */
  widths: number[];
  /** font glyph id → subset glyph id */
  ids: Map<number, number>;
}

let parsed: Font | undefined;
const font = (): Font => (parsed ??= fontkit.create(fs.readFileSync(require.resolve(FILE))));
let common: Promise<{ subset: Subset; shaper?: Shaper }> | undefined;

const hex4 = (n: number) => n.toString(16).padStart(4, '0');

/** The ToUnicode CMap giving the text each subset glyph id stands for (at most 100 entries a block). */
function toUnicode(glyphs: Glyph[], ids: Map<number, number>): string {
  const utf16 = (cps: number[]) => {
    const text = String.fromCodePoint(...cps);
    return Array.from({ length: text.length }, (_, i) => hex4(text.charCodeAt(i))).join('');
  };
  const entries = glyphs.filter((g) => g.codePoints.length).map((g) => `<${hex4(ids.get(g.id)!)}> <${utf16(g.codePoints)}>`);
  const blocks: string[] = [];
  for (let i = 0; i < entries.length; i += 100) {
    const block = entries.slice(i, i + 100);
    blocks.push(`${block.length} beginbfchar\n${block.join('\n')}\nendbfchar`);
  }
  return [
    '/CIDInit /ProcSet findresource begin', '12 dict begin', 'begincmap',
    '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def', '/CMapName /Adobe-Identity-UCS def', '/CMapType 2 def',
    '1 begincodespacerange', '<0000> <ffff>', 'endcodespacerange', ...blocks,
    'endcmap', 'CMapName currentdict /CMap defineresource pop', 'end', 'end',
  ].join('\n');
}

/** A subset of the font holding `glyphs` (from a layout, with the text they stand for), encoded once. */
async function makeSubset(f: Font, all: Glyph[]): Promise<Subset> {
  // A glyph standing for several characters (space and no-break space) keeps the text it was first seen for.
  const byId = new Map<number, Glyph>();
  for (const g of all) if (!byId.has(g.id)) byId.set(g.id, g);
  const glyphs = [...byId.values()];
  const subset = f.createSubset();
  const ids = new Map(glyphs.map((g) => [g.id, subset.includeGlyph(g)]));
  const bytes = await new Promise<Buffer>((resolve, reject) => {
    const parts: Uint8Array[] = [];
    (subset.encodeStream() as unknown as NodeJS.EventEmitter)
      .on('data', (d: Uint8Array) => parts.push(d))
      .on('end', () => resolve(Buffer.concat(parts)))
      .on('error', reject);
  });
  const scale = 1000 / f.unitsPerEm;
  const widths = [f.getGlyph(0).advanceWidth * scale];
  for (const g of glyphs) widths[ids.get(g.id)!] = g.advanceWidth * scale;
  // A subset's name starts with a tag of six capitals (ISO 32000-1 §9.6.4), here derived from its glyphs.
  const digest = crypto.createHash('sha256').update(Uint32Array.from(ids.keys())).digest();
  const tag = String.fromCharCode(...digest.subarray(0, 6).map((b) => 65 + (b % 26)));
  return {
    baseFont: `${tag}+${f.postscriptName ?? 'Handwriting'}`,
    fontFile: zlib.deflateSync(bytes),
    fontFileLength: bytes.length,
    toUnicode: zlib.deflateSync(toUnicode(glyphs, ids)),
    widths,
    ids,
  };
}

function commonSubset(): Promise<{ subset: Subset; shaper?: Shaper }> {
  if (!common) {
    const f = font();
    const chars = REPERTOIRE.filter((c) => f.hasGlyphForCodePoint(c.codePointAt(0)!));
    const shaper = ligatureShaper(f, chars);
    // The ligatures the font forms from these characters, spelt out: laid out, they give the ligature glyphs with
    // the text they stand for.
    const byGlyph = new Map(chars.map((c) => [f.glyphForCodePoint(c.codePointAt(0)!).id, c]));
    const ligatures = (shaper?.lookups ?? []).flatMap((lookup) =>
      [...lookup].flatMap(([first, list]) => list.map((l) => [first, ...l.components].map((id) => byGlyph.get(id)))),
    );
    const texts = [...chars, ...ligatures.filter((l) => l.every(Boolean)).map((l) => l.join(''))];
    common = makeSubset(f, texts.flatMap((t) => f.layout(t).glyphs)).then((subset) => ({ subset, shaper }));
  }
  return common;
}

/**
 * The widths of the glyphs `ids` as a CIDFont's W array: `first [w1 w2 …]` for each run of consecutive ids. Only
 * the glyphs the document shows need one (a long array is most of the time spent parsing the mandate back).
 */
function widthsOf(s: Subset, ids: number[]): (number | number[])[] {
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

/** The objects of a Type 0 font over the subset (ISO 32000-1 §9.7), as pdf-lib would write them. */
function register(doc: PDFDocument, s: Subset, f: Font, ids: number[]): PDFRef {
  const ctx = doc.context;
  const scale = 1000 / f.unitsPerEm;
  const fontFile = ctx.register(new StoredStream(ctx.obj({ Filter: 'FlateDecode', Length1: s.fontFileLength }), s.fontFile));
  const descriptor = ctx.register(ctx.obj({
    // Flags 4 + 8: symbolic (shown by glyph id, not a standard encoding) and script.
    Type: 'FontDescriptor', FontName: s.baseFont, Flags: 4 | 8,
    FontBBox: [f.bbox.minX, f.bbox.minY, f.bbox.maxX, f.bbox.maxY].map((v) => v * scale),
    ItalicAngle: f.italicAngle, Ascent: f.ascent * scale, Descent: f.descent * scale,
    CapHeight: (f.capHeight || f.ascent) * scale, XHeight: (f.xHeight || 0) * scale, StemV: 0, FontFile2: fontFile,
  }));
  const cidFont = ctx.register(ctx.obj({
    Type: 'Font', Subtype: 'CIDFontType2', BaseFont: s.baseFont, CIDToGIDMap: 'Identity',
    CIDSystemInfo: { Registry: PDFString.of('Adobe'), Ordering: PDFString.of('Identity'), Supplement: 0 },
    FontDescriptor: descriptor, W: widthsOf(s, ids),
  }));
  const dict = ctx.obj({
    Type: 'Font', Subtype: 'Type0', BaseFont: s.baseFont, Encoding: 'Identity-H', DescendantFonts: [cidFont],
    ToUnicode: ctx.register(new StoredStream(ctx.obj({ Filter: 'FlateDecode' }), s.toUnicode)),
  });
  return ctx.register(dict);
}

export interface EmbeddedText {
  font: PDFRef;
  /** the text as subset glyph ids, hex */
  hex: string;
  /** its advance at a font size of 1 */
  width: number;
}

/** `text` set in the handwriting font and the font embedded in `doc`, or undefined if the font lacks a character. */
export async function embedHandwriting(doc: PDFDocument, text: string): Promise<EmbeddedText | undefined> {
  const f = font();
  if (![...text].every((c) => f.hasGlyphForCodePoint(c.codePointAt(0)!))) return undefined;
  const common = await commonSubset();
  let subset = common.subset;
  // A name of the shared subset's characters is shaped from the font's tables (shaping.ts), any other by fontkit.
  let glyphs = common.shaper?.shape(text);
  if (!glyphs?.every((g) => subset.ids.has(g))) {
    // Kerning is left out: text is shown glyph by glyph at its advance (as pdf-lib did).
    const laid = f.layout(text, { kern: false }).glyphs;
    if (!laid.every((g) => subset.ids.has(g.id))) subset = await makeSubset(f, laid);
    glyphs = laid.map((g) => g.id);
  }
  const ids = glyphs.map((g) => subset.ids.get(g)!);
  return {
    font: register(doc, subset, f, ids),
    hex: ids.map(hex4).join(''),
    width: ids.reduce((w, id) => w + (subset.widths[id] ?? 0), 0) / 1000,
  };
}
