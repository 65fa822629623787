// Page content written as PDF operators. pdf-lib's drawText builds an object per operator and measures with kerning
// it does not draw, and its streams are deflated by pako, which allocates a 256 KB state for each: together most of
// a mandate's time. Fonts and pages remain pdf-lib's.
//
// The operators are stored uncompressed: a page's are 1 to 3 KB, and Node's zlib costs about 80 µs a call in a
// running process (setting up a stream object and the deflate state), for some 1.5 KB saved on a 30 KB file whose
// bulk (the handwriting font) is compressed once and for all.
import { PDFName, type PDFFont, type PDFPage, type PDFRef } from 'pdf-lib';
import { StoredStream } from './pdf-stream';

/** A character of a standard font: its WinAnsi code, as written in a literal string, and advance per point of size. */
interface Glyph {
  code: string;
  width: number;
}
const standardGlyphs = new Map<string, Map<string, Glyph>>();

/** The codes and widths of a standard font's characters, learnt from pdf-lib's metrics once per character. */
function glyphsOf(font: PDFFont): (ch: string) => Glyph {
  let glyphs = standardGlyphs.get(font.name);
  if (!glyphs) standardGlyphs.set(font.name, (glyphs = new Map()));
  const known = glyphs;
  return (ch) => {
    let g = known.get(ch);
    if (!g) {
      const code = String.fromCharCode(parseInt(font.encodeText(ch).asString(), 16)); // one byte, kept as latin1
      known.set(ch, (g = { code: '()\\'.includes(code) ? `\\${code}` : code, width: font.widthOfTextAtSize(ch, 1) }));
    }
    return g;
  };
}

/** The width of `text` (WinAnsi characters) in a standard font, as drawn: advances without kerning. */
export function textWidth(font: PDFFont, text: string, size: number): number {
  const glyph = glyphsOf(font);
  let w = 0;
  for (const ch of text) w += glyph(ch).width;
  return w * size;
}

const num = (n: number) => String(Math.round(n * 100) / 100);
export type Color = readonly [number, number, number];

/** Operators for one page, added to it as one content stream by `end()`. */
export class PageContent {
  private readonly ops: string[] = [];
  private readonly fonts = new Map<PDFRef, string>();
  constructor(readonly page: PDFPage) {}

  /** The page's resource name for a font, added to its resources on first use. */
  private fontName(ref: PDFRef): string {
    let name = this.fonts.get(ref);
    if (!name) {
      this.fonts.set(ref, (name = `F${this.fonts.size + 1}`));
      this.page.node.setFontDictionary(PDFName.of(name), ref);
    }
    return name;
  }

  /** One line of WinAnsi text in a standard font, its baseline starting at (x, y). */
  text(text: string, at: { x: number; y: number; size: number; font: PDFFont; color?: Color }): void {
    const glyph = glyphsOf(at.font);
    let codes = '';
    for (const ch of text) codes += glyph(ch).code;
    this.put(`(${codes})`, at.font.ref, at);
  }

  /** Text already encoded for its font (hex codes), e.g. glyph ids of an embedded font. */
  show(hex: string, font: PDFRef, at: { x: number; y: number; size: number; color?: Color }): void {
    this.put(`<${hex}>`, font, at);
  }

  private put(string: string, font: PDFRef, at: { x: number; y: number; size: number; color?: Color }): void {
    const color = at.color ? `${at.color.map(num).join(' ')} rg ` : '';
    this.ops.push(`BT ${color}/${this.fontName(font)} ${num(at.size)} Tf ${num(at.x)} ${num(at.y)} Td ${string} Tj ET`);
  }

  rectangle(r: { x: number; y: number; width: number; height: number; borderColor: Color; borderWidth: number }): void {
    this.ops.push(`q ${r.borderColor.map(num).join(' ')} RG ${num(r.borderWidth)} w ${[r.x, r.y, r.width, r.height].map(num).join(' ')} re S Q`);
  }

  end(): void {
    if (!this.ops.length) return;
    const { context } = this.page.doc;
    const stream = new StoredStream(context.obj({}), Buffer.from(this.ops.join('\n'), 'latin1'));
    this.page.node.addContentStream(context.register(stream));
    this.ops.length = 0;
  }
}
