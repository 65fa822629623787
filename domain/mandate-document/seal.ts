// Seals a finished mandate with the service's certificate: a PAdES baseline B-B signature that any reader can check
// has not been altered since. The seal (and any last page added with it) is an incremental update, so a signature
// the company put on an uploaded mandate stays valid under ours.
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFNumber, PDFString, type PDFDocument } from 'pdf-lib';
import { padesCms, padesCmsMaxLength, type SealKey } from './cades';
import { openForIncrement } from './pdf-increment';

export type { SealKey };

export interface SealInfo {
  name: string;
  reason: string;
  location: string;
  contact: string;
}

/** Appends what `amend` adds (e.g. the audit page) and the seal, in one incremental update, then signs it. */
export async function sealPdf(
  pdf: Uint8Array,
  key: SealKey,
  info: SealInfo,
  amend?: (doc: PDFDocument) => Promise<void>,
): Promise<Buffer> {
  const editable = await openForIncrement(pdf);
  if (amend) await amend(editable.doc);
  addSealField(editable.doc, info, padesCmsMaxLength(key));
  return sign(await editable.save(), key);
}

/** What /ByteRange holds until the file is complete: as wide as the four numbers will be. */
const PLACEHOLDER = '**********';
const BYTE_RANGE = `/ByteRange [ 0 /${PLACEHOLDER} /${PLACEHOLDER} /${PLACEHOLDER} ]`;

/**
 * Signs the complete file in place (ISO 32000-1 §12.8.1): /ByteRange gets the offsets of everything but the
 * /Contents hex string, then /Contents the CMS over those bytes. (What @signpdf/signpdf does, without the three
 * copies of the file it makes on the way.)
 */
function sign(pdf: Buffer, key: SealKey): Buffer {
  const at = pdf.lastIndexOf(BYTE_RANGE);
  const start = at < 0 ? -1 : pdf.indexOf('<', pdf.indexOf('/Contents ', at));
  const end = start < 0 ? -1 : pdf.indexOf('>', start) + 1;
  if (end <= 0) throw new Error('the PDF has no seal placeholder');
  pdf.write(`/ByteRange [0 ${start} ${end} ${pdf.length - end}]`.padEnd(BYTE_RANGE.length), at, 'latin1');
  const cms = padesCms([pdf.subarray(0, start), pdf.subarray(end)], key);
  if (2 * cms.length > end - start - 2) throw new Error(`the seal (${cms.length} bytes) does not fit its placeholder`);
  pdf.write(cms.toString('hex'), start + 1, 'latin1');
  return pdf;
}

/**
 * The seal's signature field (ISO 32000-1 §12.7.4.5, §12.8.1): the signature dictionary with placeholders for
 * `sign`, an invisible widget on the first page, the field listed in the AcroForm. Written here rather than with
 * @signpdf/placeholder-pdf-lib, whose widget appearance goes through pako (a 256 KB state to deflate nothing) and
 * whose field is always named "Signature1", which a document signed before us already has.
 */
function addSealField(doc: PDFDocument, info: SealInfo, cmsLength: number): void {
  const ctx = doc.context;
  const placeholder = PDFName.of(PLACEHOLDER);
  const signature = ctx.register(
    ctx.obj({
      Type: 'Sig',
      Filter: 'Adobe.PPKLite',
      SubFilter: 'ETSI.CAdES.detached',
      // `sign` finds /ByteRange, then the /Contents after it: room for the CMS, in hex.
      ByteRange: [0, placeholder, placeholder, placeholder],
      Contents: PDFHexString.of('0'.repeat(2 * cmsLength)),
      Reason: PDFString.of(info.reason),
      M: PDFString.fromDate(new Date()),
      ContactInfo: PDFString.of(info.contact),
      Name: PDFString.of(info.name),
      Location: PDFString.of(info.location),
      Prop_Build: { Filter: { Name: 'Adobe.PPKLite' } },
    }),
  );
  let form = doc.catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict);
  if (!form) doc.catalog.set(PDFName.of('AcroForm'), ctx.register((form = ctx.obj({}))));
  let fields = form.lookupMaybe(PDFName.of('Fields'), PDFArray);
  if (!fields) form.set(PDFName.of('Fields'), (fields = ctx.obj([])));
  const names = new Set(
    fields
      .asArray()
      .map((f) => ctx.lookupMaybe(f, PDFDict)?.lookupMaybe(PDFName.of('T'), PDFString, PDFHexString)?.decodeText()),
  );
  let n = fields.size() + 1;
  while (names.has(`Seal${n}`)) n++;
  const page = doc.getPage(0);
  const widget = ctx.register(
    ctx.obj({
      Type: 'Annot',
      Subtype: 'Widget',
      FT: 'Sig',
      Rect: [0, 0, 0, 0],
      V: signature,
      T: PDFString.of(`Seal${n}`),
      F: 4 /* print */,
      P: page.ref,
      // An appearance, even empty, as PDF/A wants.
      AP: { N: ctx.register(ctx.stream('', { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 0, 0], Resources: {} })) },
    }),
  );
  const annots = page.node.lookupMaybe(PDFName.of('Annots'), PDFArray);
  if (annots) annots.push(widget);
  else page.node.set(PDFName.of('Annots'), ctx.obj([widget]));
  const flags = form.lookupMaybe(PDFName.of('SigFlags'), PDFNumber)?.asNumber() ?? 0;
  form.set(PDFName.of('SigFlags'), PDFNumber.of(flags | 1 | 2)); // signatures exist, append only
  fields.push(widget);
}
