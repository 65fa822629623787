// Seals a finished mandate with the service's certificate: a PAdES baseline B-B signature that any reader can check
// has not been altered since. The seal (and any last page added with it) is an incremental update, so a signature
// the company put on an uploaded mandate stays valid under ours.
import { pdflibAddPlaceholder } from '@signpdf/placeholder-pdf-lib';
import { SignPdf } from '@signpdf/signpdf';
import { SUBFILTER_ETSI_CADES_DETACHED } from '@signpdf/utils';
import { PDFArray, PDFDict, PDFName, PDFString, type PDFDocument } from 'pdf-lib';
import { PadesSigner, type SealKey } from './cades';
import { openForIncrement } from './pdf-increment';

export type { SealKey };

export interface SealInfo {
  name: string;
  reason: string;
  location: string;
  contact: string;
}

/** Appends what `amend` adds (e.g. the audit page) and the seal, in one incremental update, then signs it. */
export async function sealPdf(pdf: Uint8Array, key: SealKey, info: SealInfo, amend?: (doc: PDFDocument) => Promise<void>): Promise<Buffer> {
  const editable = await openForIncrement(pdf);
  if (amend) await amend(editable.doc);
  pdflibAddPlaceholder({
    pdfDoc: editable.doc,
    reason: info.reason,
    name: info.name,
    location: info.location,
    contactInfo: info.contact,
    subFilter: SUBFILTER_ETSI_CADES_DETACHED,
    signatureLength: 8_192,
  });
  nameLastField(editable.doc);
  const prepared = Buffer.from(await editable.save());
  // The named class, not the default instance: the package's default export does not survive Node's ESM interop.
  return new SignPdf().sign(prepared, new PadesSigner(key));
}

/** The placeholder always names its field "Signature1": a document signed before us already has one. */
function nameLastField(doc: PDFDocument): void {
  const fields = doc.catalog.lookup(PDFName.of('AcroForm'), PDFDict).lookup(PDFName.of('Fields'), PDFArray);
  const names = new Set(fields.asArray().map((f) => doc.context.lookupMaybe(f, PDFDict)?.lookupMaybe(PDFName.of('T'), PDFString)?.decodeText()));
  let n = fields.size();
  while (names.has(`Seal${n}`)) n++;
  doc.context.lookup(fields.get(fields.size() - 1), PDFDict).set(PDFName.of('T'), PDFString.of(`Seal${n}`));
}
