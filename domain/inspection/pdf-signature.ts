// A digital signature in a PDF (ISO 32000-1 §12.8): its CMS (pkijs) must verify over the bytes its /ByteRange
// covers. What revision it signed is the file up to the end of that range.
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { PdfSignature } from './pdf-walk';

/** The signed revision's bytes when the signature verifies; `undefined` when its ranges or its CMS do not hold. */
export async function signedRevision(pdf: Uint8Array, sig: PdfSignature): Promise<Uint8Array | undefined> {
  const [a, b, c, d] = sig.byteRange;
  if (sig.byteRange.length !== 4 || a !== 0 || ![b, c, d].every((n) => Number.isInteger(n) && n! >= 0))
    return undefined;
  if (b! > c! || c! + d! > pdf.length) return undefined;
  const signed = Buffer.concat([pdf.subarray(0, b), pdf.subarray(c!, c! + d!)]);
  try {
    const asn1 = asn1js.fromBER(Uint8Array.from(sig.contents).buffer);
    if (asn1.offset === -1) return undefined;
    const info = new pkijs.ContentInfo({ schema: asn1.result });
    if (info.contentType !== pkijs.ContentInfo.SIGNED_DATA) return undefined;
    const data = new pkijs.SignedData({ schema: info.content });
    const ok = await data.verify({
      signer: 0,
      data: signed.buffer.slice(signed.byteOffset, signed.byteOffset + signed.byteLength),
      checkChain: false,
    });
    return ok ? pdf.subarray(0, c! + d!) : undefined;
  } catch {
    return undefined; // a CMS that does not parse, or a signature that does not verify
  }
}
