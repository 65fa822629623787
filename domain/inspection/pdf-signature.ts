// A digital signature in a PDF (ISO 32000-1 §12.8): its CMS (pkijs) must verify over the bytes its /ByteRange
// covers. What revision it signed is the file up to the end of that range. Who signed is the certificate the CMS
// names as its signer's; whether that certificate is to be believed is for the caller (domain/review/
// signing-certificate.ts), against the trust anchors the platform configures.
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { PdfSignature } from './pdf-walk';

/** A verified signature: the revision it signed, its signer's certificate and the others the CMS carries (DER). */
export interface VerifiedSignature {
  revision: Uint8Array;
  signer?: Uint8Array;
  others: Uint8Array[];
}

const der = (c: pkijs.Certificate) => new Uint8Array(c.toSchema().toBER(false));

/** The signed revision and its certificates when the signature verifies; `undefined` when its ranges or CMS do not hold. */
export async function verifiedSignature(pdf: Uint8Array, sig: PdfSignature): Promise<VerifiedSignature | undefined> {
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
    const result = await data.verify({
      signer: 0,
      data: signed.buffer.slice(signed.byteOffset, signed.byteOffset + signed.byteLength),
      checkChain: false,
      extendedMode: true,
    });
    if (!result.signatureVerified) return undefined;
    const certificates = (data.certificates ?? []).filter(
      (x): x is pkijs.Certificate => x instanceof pkijs.Certificate,
    );
    const signer = result.signerCertificate;
    return {
      revision: pdf.subarray(0, c! + d!),
      ...(signer && { signer: der(signer) }),
      others: certificates.filter((x) => x !== signer).map(der),
    };
  } catch {
    return undefined; // a CMS that does not parse, or a signature that does not verify
  }
}
