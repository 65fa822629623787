// Checks of uploaded files by their content, never by a name or a declared type. The cheap checks (base64, size,
// the first bytes) run here; decoding the file runs in the inspection pool's child processes (domain/inspection/).
import { DomainError } from '../errors';
import {
  BusyError,
  RefusedFile,
  type FileChecker,
  type ImageMime,
  type RefusalCode,
  type UploadEvidence,
} from '../inspection';
import type { Job } from '../inspection/jobs';
import type { InspectedMandate } from '../inspection/inspect-pdf';
import type { MandateReference } from '../inspection/mandate-text';

export const MAX_UPLOAD_BYTES = 4 * 1024 * 1024;

/** Why an upload was refused, for clients that show the reason in the signer's language (the wizard). */
export type UploadErrorCode = 'bad-encoding' | 'empty' | 'too-large' | 'busy' | RefusalCode;

export class UploadError extends DomainError<UploadErrorCode> {}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decodes strict base64 and enforces the 4 MB limit on the decoded bytes. */
export function decodeBase64(field: string, value: string): Buffer {
  const compact = value.replace(/\s+/g, '');
  if (compact.length % 4 !== 0 || !BASE64.test(compact))
    throw new UploadError('bad-encoding', `${field} is not valid base64`);
  if ((compact.length / 4) * 3 > MAX_UPLOAD_BYTES + 2)
    throw new UploadError('too-large', `${field} is larger than 4 MB`);
  const bytes = Buffer.from(compact, 'base64');
  if (bytes.length > MAX_UPLOAD_BYTES) throw new UploadError('too-large', `${field} is larger than 4 MB`);
  if (bytes.length === 0) throw new UploadError('empty', `${field} is empty`);
  return bytes;
}

export type { ImageMime, UploadEvidence };

/** The type the first bytes claim; the inspection then checks the whole file is that. */
export function imageMime(field: string, bytes: Uint8Array): ImageMime {
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (png.every((b, i) => bytes[i] === b)) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  throw new UploadError('not-an-image', `${field} must be a PNG or JPEG image (its content is neither)`);
}

/** Refusals and a full pool, as the caller's UploadError naming the field. */
async function inspected<T>(field: string, check: Promise<T>): Promise<T> {
  try {
    return await check;
  } catch (err) {
    if (err instanceof RefusedFile)
      throw new UploadError(err.refusal.code, `${field} ${err.refusal.reason}`, { sizeLimit: err.refusal.sizeLimit });
    if (err instanceof BusyError)
      throw new UploadError('busy', `${field} cannot be checked now: ${err.message}`, { retryAfterS: err.retryAfterS });
    throw err;
  }
}

/** An identity document image: the PNG or JPEG it claims to be, decodable to the end, within the pixel limit. */
export async function checkIdentityImage(pool: FileChecker, field: string, bytes: Uint8Array): Promise<ImageMime> {
  const claimed = imageMime(field, bytes);
  await inspected(field, pool.run({ kind: 'image', bytes, claimed, purpose: 'identity' }));
  return claimed;
}

/** A drawn signature, checked like an identity image, and returned as a small PNG fit for the signature box. */
export async function normalisedSignature(pool: FileChecker, field: string, bytes: Uint8Array): Promise<Uint8Array> {
  const claimed = imageMime(field, bytes);
  const { png } = await inspected(field, pool.run({ kind: 'image', bytes, claimed, purpose: 'signature' }));
  return png!;
}

/**
 * The confirmed mandate with its audit page, sealed. Sealing parses the whole signed PDF, which may be the signer's
 * own upload: a file that passed the checks can still take seconds to parse, so it is done in the pool too.
 */
export async function sealedInPool(
  pool: FileChecker,
  job: Omit<Extract<Job, { kind: 'seal' }>, 'kind'>,
): Promise<Buffer> {
  return Buffer.from(await inspected('the signed mandate', pool.run({ kind: 'seal', ...job })));
}

/** A pre-signed mandate: a PDF without active content, our mandate, with evidence that it was signed. */
export async function checkSignedMandate(
  pool: FileChecker,
  field: string,
  bytes: Uint8Array,
  reference: MandateReference,
  superseded: string[] = [],
): Promise<InspectedMandate> {
  return inspected(field, pool.run({ kind: 'mandate', bytes, reference, superseded }));
}
