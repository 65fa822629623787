// Stream decoding that counts bytes and stops at the limit. Flate goes through Node's zlib with maxOutputLength
// (pdf-lib's own inflater decodes a whole deflate block at once, and one block can be gigabytes); the other
// general filters through pdf-lib, asking for one byte more than the limit. Image codecs are not decoded here.
import zlib from 'node:zlib';
import { PDFArray, PDFDict, PDFName, PDFRawStream, decodePDFRawStream } from 'pdf-lib';
import { LimitError, UnreadableError } from './limits';

const IMAGE_CODECS = new Set(['DCTDecode', 'DCT', 'JPXDecode', 'CCITTFaxDecode', 'CCF', 'JBIG2Decode']);
const GENERAL = new Map([
  ['LZWDecode', 'LZWDecode'],
  ['LZW', 'LZWDecode'],
  ['ASCII85Decode', 'ASCII85Decode'],
  ['A85', 'ASCII85Decode'],
  ['ASCIIHexDecode', 'ASCIIHexDecode'],
  ['AHx', 'ASCIIHexDecode'],
  ['RunLengthDecode', 'RunLengthDecode'],
  ['RL', 'RunLengthDecode'],
]);
const MB = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;

export function filtersOf(stream: PDFRawStream): string[] {
  const f = stream.dict.lookup(PDFName.of('Filter'));
  if (f instanceof PDFName) return [f.decodeText()];
  if (f instanceof PDFArray)
    return f
      .asArray()
      .map((x) =>
        stream.dict.context.lookup(x) instanceof PDFName
          ? (stream.dict.context.lookup(x) as PDFName).decodeText()
          : '?',
      );
  return [];
}

/** Decodes streams within a per-stream and a per-document budget of decoded bytes. */
export class DecodeBudget {
  used = 0;
  constructor(
    readonly perStream: number,
    readonly total: number,
  ) {}

  /**
   * The decoded bytes, or `undefined` when the stream ends in an image codec (its bytes are then an image, not
   * decoded here). Throws LimitError over a limit, UnreadableError for data that does not decode.
   */
  decode(stream: PDFRawStream, what: string): Uint8Array | undefined {
    let data: Uint8Array = stream.contents;
    for (const filter of filtersOf(stream)) {
      if (IMAGE_CODECS.has(filter)) return undefined;
      const room = Math.min(this.perStream, this.total - this.used);
      if (filter === 'FlateDecode' || filter === 'Fl') data = this.inflate(data, room, what);
      else if (GENERAL.has(filter)) {
        const one = PDFRawStream.of(stream.dict.context.obj({ Filter: GENERAL.get(filter)! }) as PDFDict, data);
        try {
          data = Uint8Array.from(decodePDFRawStream(one).getBytes(room + 1));
        } catch (err) {
          throw new UnreadableError(`${what} does not decode (${filter}: ${(err as Error).message})`);
        }
        if (data.length > room) this.over(what);
      } else throw new UnreadableError(`${what} uses an unknown filter (${filter})`);
    }
    if (data.length > this.perStream) this.over(what);
    this.used += data.length;
    if (this.used > this.total) this.over(what);
    return data;
  }

  private inflate(data: Uint8Array, room: number, what: string): Uint8Array {
    try {
      // Z_SYNC_FLUSH: a stream cut short (common, and harmless) gives what it holds instead of an error.
      return zlib.inflateSync(data, { maxOutputLength: room + 1, finishFlush: zlib.constants.Z_SYNC_FLUSH });
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) this.over(what);
      throw new UnreadableError(`${what} does not decode (FlateDecode: ${(err as Error).message})`);
    }
  }

  private over(what: string): never {
    if (this.total - this.used < this.perStream) {
      throw new LimitError('size', `its streams decode to more than ${MB(this.total)} together (the limit)`);
    }
    throw new LimitError('size', `${what} decodes to more than ${MB(this.perStream)} (the limit for one stream)`);
  }
}
