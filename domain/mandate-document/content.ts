// Page content written as PDF operators. pdf-lib's drawText builds an object per operator and measures with kerning
// it does not draw, and its streams are deflated by pako, which allocates a 256 KB state for each: together most of
// a mandate's time. Fonts and pages remain pdf-lib's.
//
// The operators are stored uncompressed: a page's are 1 to 3 KB, and Node's zlib costs about 80 µs a call in a
// running process (setting up a stream object and the deflate state), for some 1.5 KB saved on a file whose bulk
// (the embedded fonts) is compressed once and for all.
import { PDFName, type PDFPage, type PDFRef } from 'pdf-lib';
import { StoredStream } from './pdf-stream';
import type { TextFont } from './text-fonts';

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

  /** One line of text (as `font.drawable` gives it), its baseline starting at (x, y). */
  text(text: string, at: { x: number; y: number; size: number; font: TextFont; color?: Color }): void {
    this.put(`<${at.font.encode(text)}>`, at.font.ref, at);
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
    this.ops.push(
      `q ${r.borderColor.map(num).join(' ')} RG ${num(r.borderWidth)} w ${[r.x, r.y, r.width, r.height].map(num).join(' ')} re S Q`,
    );
  }

  end(): void {
    if (!this.ops.length) return;
    const { context } = this.page.doc;
    const stream = new StoredStream(context.obj({}), Buffer.from(this.ops.join('\n'), 'latin1'));
    this.page.node.addContentStream(context.register(stream));
    this.ops.length = 0;
  }
}
