// A PDF object written as bytes serialised once: pdf-lib formats every number of an array again for each document
// (widths of a font's glyphs: hundreds of numbers), where these bytes are the same every time.
import { PDFObject, type PDFContext } from 'pdf-lib';

export class SerialisedObject extends PDFObject {
  constructor(private readonly bytes: Buffer) {
    super();
  }

  override clone(_context?: PDFContext): SerialisedObject {
    return this;
  }
  override toString(): string {
    return this.bytes.toString('latin1');
  }
  override sizeInBytes(): number {
    return this.bytes.length;
  }
  override copyBytesInto(buffer: Uint8Array, offset: number): number {
    buffer.set(this.bytes, offset);
    return this.bytes.length;
  }
}
