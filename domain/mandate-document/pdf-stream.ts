// A PDF stream whose bytes are written in one copy. pdf-lib's own streams copy their contents into the file byte by
// byte, which for the handwriting font (20 KB) was a tenth of the time to build a mandate.
import { PDFStream, type PDFContext, type PDFDict } from 'pdf-lib';

const STREAM = Buffer.from('\nstream\n', 'latin1');
const ENDSTREAM = Buffer.from('\nendstream', 'latin1');

/** `contents` as they are: already encoded as `dict`'s /Filter says. */
export class StoredStream extends PDFStream {
  constructor(
    dict: PDFDict,
    private readonly contents: Uint8Array,
  ) {
    super(dict);
  }

  override getContents(): Uint8Array {
    return this.contents;
  }
  override getContentsSize(): number {
    return this.contents.length;
  }
  override getContentsString(): string {
    return Buffer.from(this.contents.buffer, this.contents.byteOffset, this.contents.byteLength).toString('latin1');
  }
  override clone(context?: PDFContext): StoredStream {
    return new StoredStream(this.dict.clone(context), this.contents);
  }

  override copyBytesInto(buffer: Uint8Array, offset: number): number {
    this.updateDict();
    const start = offset;
    offset += this.dict.copyBytesInto(buffer, offset);
    for (const part of [STREAM, this.contents, ENDSTREAM]) {
      buffer.set(part, offset);
      offset += part.length;
    }
    return offset - start;
  }
}
