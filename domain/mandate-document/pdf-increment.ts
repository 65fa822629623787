// Changes to an existing PDF written as an incremental update (ISO 32000-1 §7.5.6): the original bytes stay as they
// are, followed by the new and changed objects, a cross-reference section and a trailer pointing back to the
// previous one. Signatures already in the file keep covering exactly what they signed.
import {
  ParseSpeeds,
  PDFCrossRefSection,
  PDFDocument,
  PDFStream,
  PDFTrailer,
  PDFTrailerDict,
  type PDFObject,
  type PDFRef,
} from 'pdf-lib';
import { openLazily } from './pdf-lazy';

export interface EditablePdf {
  doc: PDFDocument;
  /** Writes the original bytes followed by one incremental update holding what changed since `open`. */
  save(): Promise<Buffer>;
}

/** The byte offset of the file's last cross-reference section, from its final `startxref`. */
function lastXrefOffset(bytes: Uint8Array): number {
  const tail = Buffer.from(bytes.subarray(Math.max(0, bytes.length - 1024))).toString('latin1');
  const m = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail);
  if (!m) throw new Error('the PDF does not end with startxref and %%EOF');
  return Number(m[1]);
}

const isStream = (o: PDFObject) => o instanceof PDFStream;

/** What pdf-lib writes into a file: its objects, a cross-reference section, a trailer. */
interface Serialisable {
  sizeInBytes(): number;
  copyBytesInto(buffer: Uint8Array, offset: number): number;
}

/**
 * The highest object number the file uses. pdf-lib does not count object streams and cross-reference streams it
 * has unpacked, so new objects could reuse their numbers; every cross-reference section's /Size says the truth.
 */
function highestObjectNumber(bytes: Uint8Array): number {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let max = 0;
  for (const m of text.matchAll(/\/Size\s+(\d+)/g)) max = Math.max(max, Number(m[1]) - 1);
  for (const m of text.matchAll(/(?:^|[\s>])(\d+)\s+\d+\s+obj\b/g)) max = Math.max(max, Number(m[1]));
  return max;
}

async function loadWhole(bytes: Uint8Array, loaded: (ref: PDFRef, obj: PDFObject) => void): Promise<PDFDocument> {
  const doc = await PDFDocument.load(bytes, { updateMetadata: false, parseSpeed: ParseSpeeds.Fastest });
  for (const [ref, obj] of doc.context.enumerateIndirectObjects()) loaded(ref, obj);
  doc.context.largestObjectNumber = Math.max(doc.context.largestObjectNumber, highestObjectNumber(bytes));
  return doc;
}

/**
 * Loads a PDF for changes that will be appended, not rewritten: only the objects looked up when the file allows it
 * (see pdf-lazy.ts), else all. Changed objects are found by comparing each non-stream object's serialisation with
 * its state at load; existing streams are expected to stay untouched (new content goes into new streams).
 */
export async function openForIncrement(bytes: Uint8Array): Promise<EditablePdf> {
  const prev = lastXrefOffset(bytes);
  const before = new Map<string, string>();
  const loaded = (ref: PDFRef, obj: PDFObject) => {
    if (!isStream(obj)) before.set(ref.tag, obj.toString());
  };
  const doc = openLazily(bytes, prev, loaded) ?? (await loadWhole(bytes, loaded));
  const ctx = doc.context;
  const originalLargest = ctx.largestObjectNumber;

  async function save(): Promise<Buffer> {
    await doc.flush(); // embeds the fonts and images drawn since load
    const changed = ctx
      .enumerateIndirectObjects()
      .filter(
        ([ref, obj]) =>
          ref.objectNumber > originalLargest || (!isStream(obj) && before.get(ref.tag) !== obj.toString()),
      );
    // What follows the original bytes, measured first so that the file is written into one buffer.
    const pieces: (string | Serialisable)[] = [];
    const sizes: number[] = [];
    const add = (piece: string | Serialisable) => {
      pieces.push(piece);
      sizes.push(typeof piece === 'string' ? piece.length : piece.sizeInBytes());
    };
    add(bytes[bytes.length - 1] === 0x0a ? '' : '\n');
    const xref = PDFCrossRefSection.create();
    let offset = bytes.length + sizes[0]!;
    for (const [ref, obj] of changed) {
      xref.addEntry(ref, offset);
      for (const piece of [`${ref.objectNumber} ${ref.generationNumber} obj\n`, obj, '\nendobj\n']) {
        add(piece);
        offset += sizes.at(-1)!;
      }
    }
    const info = ctx.trailerInfo;
    const trailerDict = ctx.obj({
      Size: ctx.largestObjectNumber + 1,
      Root: info.Root,
      Info: info.Info,
      ID: info.ID,
      Prev: prev,
    });
    for (const piece of [
      xref,
      '\n',
      PDFTrailerDict.of(trailerDict),
      '\n',
      PDFTrailer.forLastCrossRefSectionOffset(offset),
    ])
      add(piece);
    const out = Buffer.allocUnsafe(sizes.reduce((n, size) => n + size, bytes.length));
    out.set(bytes, 0);
    let at = bytes.length;
    for (const piece of pieces)
      at += typeof piece === 'string' ? out.write(piece, at, 'latin1') : piece.copyBytesInto(out, at);
    if (at !== out.length) throw new Error(`the update was measured at ${out.length} bytes but wrote ${at}`); // none left unset
    return out;
  }
  return { doc, save };
}
