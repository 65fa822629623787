// Seals a finished mandate with the service's certificate: a PDF signature (ETSI.CAdES.detached, as PAdES
// baseline signatures are) that any reader can check has not been altered since.
import { P12Signer } from '@signpdf/signer-p12';
import { pdflibAddPlaceholder } from '@signpdf/placeholder-pdf-lib';
import { SignPdf } from '@signpdf/signpdf';
import { SUBFILTER_ETSI_CADES_DETACHED } from '@signpdf/utils';
import forge from 'node-forge';
import { PDFDocument } from 'pdf-lib';

export interface SealKey {
  keyPem: string;
  certPem: string;
}

const P12_PASSPHRASE = 'in-memory';
const p12Cache = new WeakMap<SealKey, Buffer>();

function p12Of(key: SealKey): Buffer {
  let p12 = p12Cache.get(key);
  if (!p12) {
    const asn1 = forge.pkcs12.toPkcs12Asn1(forge.pki.privateKeyFromPem(key.keyPem), [forge.pki.certificateFromPem(key.certPem)], P12_PASSPHRASE, { algorithm: '3des' });
    p12 = Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
    p12Cache.set(key, p12);
  }
  return p12;
}

export async function sealPdf(pdf: Uint8Array, key: SealKey, info: { name: string; reason: string; location: string; contact: string }): Promise<Buffer> {
  const doc = await PDFDocument.load(pdf);
  pdflibAddPlaceholder({
    pdfDoc: doc,
    reason: info.reason,
    name: info.name,
    location: info.location,
    contactInfo: info.contact,
    subFilter: SUBFILTER_ETSI_CADES_DETACHED,
    signatureLength: 16_384,
  });
  const prepared = Buffer.from(await doc.save({ useObjectStreams: false }));
  // The named class, not the default instance: the package's default export does not survive Node's ESM interop.
  return new SignPdf().sign(prepared, new P12Signer(p12Of(key), { passphrase: P12_PASSPHRASE }));
}
