// Checks of uploaded files by their content, never by a name or a declared type.
import { PDFDocument, PDFRawStream, decodePDFRawStream } from 'pdf-lib';

export const MAX_UPLOAD_BYTES = 4 * 1024 * 1024;

/** Why an upload was refused, for clients that show the reason in the signer's language (the wizard). */
export type UploadErrorCode = 'bad-encoding' | 'empty' | 'too-large' | 'not-an-image' | 'unreadable-image' | 'not-a-pdf' | 'encrypted-pdf' | 'unreadable-pdf' | 'not-this-mandate';

export class UploadError extends Error {
  constructor(readonly status: 400 | 413 | 415 | 422, message: string, readonly code: UploadErrorCode) {
    super(message);
  }
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decodes strict base64 and enforces the 4 MB limit on the decoded bytes. */
export function decodeBase64(field: string, value: string): Buffer {
  const compact = value.replace(/\s+/g, '');
  if (compact.length % 4 !== 0 || !BASE64.test(compact)) throw new UploadError(400, `${field} is not valid base64`, 'bad-encoding');
  if ((compact.length / 4) * 3 > MAX_UPLOAD_BYTES + 2) throw new UploadError(413, `${field} is larger than 4 MB`, 'too-large');
  const bytes = Buffer.from(compact, 'base64');
  if (bytes.length > MAX_UPLOAD_BYTES) throw new UploadError(413, `${field} is larger than 4 MB`, 'too-large');
  if (bytes.length === 0) throw new UploadError(400, `${field} is empty`, 'empty');
  return bytes;
}

export type ImageMime = 'image/png' | 'image/jpeg';

export function imageMime(field: string, bytes: Uint8Array): ImageMime {
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (png.every((b, i) => bytes[i] === b)) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  throw new UploadError(415, `${field} must be a PNG or JPEG image (its content is neither)`, 'not-an-image');
}

/** A PDF we can read: not encrypted, not malformed, with at least one page. */
export async function checkPdf(field: string, bytes: Uint8Array): Promise<PDFDocument> {
  if (Buffer.from(bytes.subarray(0, 1024)).indexOf('%PDF-') === -1) throw new UploadError(415, `${field} is not a PDF document`, 'not-a-pdf');
  let doc: PDFDocument;
  try {
    // pdf-lib parses leniently: walking the page tree is what shows a broken document.
    doc = await PDFDocument.load(bytes, { updateMetadata: false });
    if (doc.getPageCount() === 0) throw new Error('it has no page');
    return doc;
  } catch (err) {
    const name = (err as Error).name;
    if (name === 'EncryptedPDFError') throw new UploadError(422, `${field} is an encrypted PDF: upload it without a password`, 'encrypted-pdf');
    throw new UploadError(422, `${field} is not a readable PDF (${(err as Error).message.split('\n')[0]})`, 'unreadable-pdf');
  }
}

/**
 * Whether the PDF carries one of `needles` (our mandate number, the entry id): in its metadata, or as text in its
 * pages — pdf-lib and most producers write text as hex strings, so both forms are searched.
 */
export function pdfMentions(doc: PDFDocument, needles: string[]): boolean {
  const meta = [doc.getTitle(), doc.getSubject(), doc.getKeywords()].join(' ');
  if (needles.some((n) => meta.includes(n))) return true;
  const forms = needles.flatMap((n) => {
    const hex = Buffer.from(n, 'latin1').toString('hex');
    return [n, hex, hex.toUpperCase()];
  });
  for (const [, obj] of doc.context.enumerateIndirectObjects()) {
    if (!(obj instanceof PDFRawStream)) continue;
    let text: string;
    try {
      text = Buffer.from(decodePDFRawStream(obj).decode()).toString('latin1');
    } catch {
      continue; // a filter we cannot decode (images): not where the text is
    }
    if (forms.some((f) => text.includes(f))) return true;
  }
  return false;
}
