// Opening a PDF without parsing all of it. pdf-lib's loader parses every object in the file (a sixth of the time to
// seal a mandate), where an incremental update reads a few: the catalog, the page tree, the form. When the file's
// cross-reference sections are tables whose entries all point at their objects, the document is opened on a context
// that parses an object the first time it is looked up; for anything else (cross-reference streams, hybrid or
// encrypted files, wrong offsets) `openLazily` returns undefined and the caller loads the whole file.
import { PDFContext, PDFDict, PDFDocument, PDFName, PDFNumber, PDFObjectParser, PDFRef, type PDFObject } from 'pdf-lib';

/** The objects of a context, parsed from the file as pdf-lib asks for them. */
class ObjectsOnDemand extends Map<PDFRef, PDFObject> {
  private readonly deleted = new Set<PDFRef>();
  constructor(private readonly parse: (ref: PDFRef) => PDFObject | undefined) {
    super();
  }
  override get(ref: PDFRef): PDFObject | undefined {
    let object = super.get(ref);
    if (object === undefined && !this.deleted.has(ref) && (object = this.parse(ref))) super.set(ref, object);
    return object;
  }
  override delete(ref: PDFRef): boolean {
    this.deleted.add(ref);
    return super.delete(ref);
  }
}

const XREF_ENTRY = /(\d{10}) (\d{5}) ([nf])[ \r\n]{1,2}/y;
const SUBSECTION = /\s*(\d+)\s+(\d+)[ \t]*\r?\n/y;
const TRAILER = /\s*trailer\s*/y;
const OBJECT_HEADER = /(\d+)\s+(\d+)\s+obj\b\s*/y;
const match = (re: RegExp, text: string, at: number) => {
  re.lastIndex = at;
  return re.exec(text);
};

/**
 * The document in `bytes`, whose last cross-reference section is at `xref`, with its objects parsed on first use;
 * `loaded` sees each object as parsed. Undefined when the file is not one this can open safely.
 */
export function openLazily(
  bytes: Uint8Array,
  xref: number,
  loaded: (ref: PDFRef, object: PDFObject) => void,
): PDFDocument | undefined {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const context = PDFContext.create();
  // object number → its newest entry: generation and byte offset (free: no offset)
  const entries = new Map<number, { generation: number; offset?: number }>();
  const trailers: PDFDict[] = [];
  const visited = new Set<number>();
  for (let at: number | undefined = xref; at !== undefined;) {
    if (visited.has(at) || !text.startsWith('xref', at)) return undefined;
    visited.add(at);
    let pos = at + 4;
    // (A sticky regular expression that fails to match starts again from 0: the position is kept apart.)
    for (let sub = match(SUBSECTION, text, pos); sub; sub = match(SUBSECTION, text, pos)) {
      pos = SUBSECTION.lastIndex;
      for (let n = Number(sub[1]), end = n + Number(sub[2]); n < end; n++) {
        const e = match(XREF_ENTRY, text, pos);
        if (!e) return undefined;
        pos = XREF_ENTRY.lastIndex;
        if (!entries.has(n))
          entries.set(n, { generation: Number(e[2]), offset: e[3] === 'n' ? Number(e[1]) : undefined });
      }
    }
    if (!match(TRAILER, text, pos)) return undefined;
    const trailer = PDFObjectParser.forBytes(bytes.subarray(TRAILER.lastIndex), context).parseObject();
    if (!(trailer instanceof PDFDict) || trailer.has(PDFName.of('XRefStm')) || trailer.has(PDFName.of('Encrypt')))
      return undefined;
    trailers.push(trailer);
    at = trailer.lookupMaybe(PDFName.of('Prev'), PDFNumber)?.asNumber();
  }
  // Every entry in use must point at its object's header, or the tables are not to be trusted.
  const bodies = new Map<string, number>(); // ref tag → offset of the object's body
  for (const [n, { generation, offset }] of entries) {
    if (offset === undefined) continue;
    const header = match(OBJECT_HEADER, text, offset);
    if (!header || Number(header[1]) !== n || Number(header[2]) !== generation) return undefined;
    bodies.set(PDFRef.of(n, generation).tag, OBJECT_HEADER.lastIndex);
  }
  // New objects are numbered after every number the tables and trailers (/Size) have used.
  for (const n of entries.keys()) context.largestObjectNumber = Math.max(context.largestObjectNumber, n);
  for (const t of trailers) {
    const size = t.lookupMaybe(PDFName.of('Size'), PDFNumber)?.asNumber() ?? 0;
    context.largestObjectNumber = Math.max(context.largestObjectNumber, size - 1);
  }
  const entry = (key: string) => trailers.map((t) => t.get(PDFName.of(key))).find(Boolean);
  context.trailerInfo = { Root: entry('Root'), Info: entry('Info'), ID: entry('ID') };
  (context as unknown as { indirectObjects: Map<PDFRef, PDFObject> }).indirectObjects = new ObjectsOnDemand((ref) => {
    const body = bodies.get(ref.tag);
    if (body === undefined) return undefined;
    const object = PDFObjectParser.forBytes(bytes.subarray(body), context).parseObject();
    loaded(ref, object);
    return object;
  });
  // pdf-lib only builds a document from a context it parsed itself: its constructor is private, not its behaviour.
  const Doc = PDFDocument as unknown as new (
    context: PDFContext,
    ignoreEncryption: boolean,
    updateMetadata: boolean,
  ) => PDFDocument;
  return new Doc(context, false, false);
}
