// pdf-lib, loading under a decoding budget. While parsing, pdf-lib decodes object and cross-reference streams
// itself, whole and without limit: its one decoding hook (ByteStream.fromPDFRawStream, pdf-lib 1.17 is no longer
// released, so the hook stays) is pointed at the budget for the time of the load.
import { createRequire } from 'node:module';
import { PDFDocument, PDFName, PDFNumber, type PDFRawStream } from 'pdf-lib';
import { LimitError, UnreadableError } from './limits';
import { refuse } from './refusal';
import type { DecodeBudget } from './pdf-decode';

const require = createRequire(import.meta.url);
const ByteStream = (
  require('pdf-lib/cjs/core/parser/ByteStream.js') as {
    default: { of(b: Uint8Array): unknown; fromPDFRawStream(s: PDFRawStream): unknown };
  }
).default;

export async function loadWithin(bytes: Uint8Array, budget: DecodeBudget, maxObjects: number): Promise<PDFDocument> {
  const original = ByteStream.fromPDFRawStream;
  let packed = 0;
  // pdf-lib skips an object it fails to parse: what went over a limit is kept here and thrown after the load.
  let failure: Error | undefined;
  ByteStream.fromPDFRawStream = (raw: PDFRawStream) => {
    try {
      // An object stream says how many objects it holds: count them before pdf-lib makes them.
      packed += raw.dict.lookupMaybe(PDFName.of('N'), PDFNumber)?.asNumber() ?? 0;
      if (packed > maxObjects) throw new LimitError('structure', `it has more than ${maxObjects} objects (the limit)`);
      return ByteStream.of(budget.decode(raw, 'an object stream') ?? new Uint8Array());
    } catch (err) {
      throw (failure ??= err as Error);
    }
  };
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(bytes, { updateMetadata: false });
  } catch (err) {
    // pdf-lib's own message tells a programmer about its options: the signer is told what to upload instead. (Its
    // EncryptedPDFError, compiled to ES5, is no `instanceof` and keeps the name "Error": known by its message.) First:
    // an encrypted object stream does not decode, which is no reason to give.
    if (/PDFDocument\.load` is encrypted/.test((err as Error).message ?? '') && !(failure instanceof LimitError)) {
      refuse('encrypted-pdf', 'is an encrypted PDF: upload it without a password');
    }
    // pdf-lib walks the page tree recursively while it loads: a tree that loops overflows the stack.
    if (!failure && err instanceof RangeError) throw new UnreadableError('its structure loops or is nested too deeply');
    // A catalog or page tree of the wrong types (a number for /Pages…) fails in pdf-lib as a TypeError on its names.
    if (!failure && err instanceof TypeError) throw new UnreadableError('its catalog or page tree is malformed');
    throw failure ?? err;
  } finally {
    ByteStream.fromPDFRawStream = original;
  }
  if (failure) throw failure;
  return doc;
}
