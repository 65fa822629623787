// Opening a PDF for the seal's incremental update: our own mandates (cross-reference tables) are opened without
// parsing every object; files this cannot trust are loaded whole. Either way poppler and qpdf accept the result.
import { PDFDict, PDFDocument, PDFName, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { addAuditPage } from '../../../domain/mandate-document/audit-page';
import { buildMandatePdf } from '../../../domain/mandate-document/pdf';
import { openLazily } from '../../../domain/mandate-document/pdf-lazy';
import { sealPdf } from '../../../domain/mandate-document/seal';
import { frenchParty } from '../../../domain/party';
import { testSealKey } from '../../support/seal-key';
import { pdfText } from '../../support/pdf-text';
import { qpdfCheckedPdfsig } from '../../support/pdf-check';
import { SEAL_INFO, auditFacts } from '../../support/seal-facts';

const INFO = SEAL_INFO;
const FACTS = auditFacts('typed');

const mandate = () =>
  buildMandatePdf({
    party: frenchParty.parse({
      name: 'Boulangerie Exemple SAS',
      tax_id: { country: 'FR', code: '27552032534' },
      identities: [{ type: 'SIREN', code: '552032534' }],
      people: [
        { name: { given: 'Élodie', surname: 'Martin' }, role: 'Présidente', identities: [{ code: 'X4RTBPFW4' }] },
      ],
    }),
    siren: '552032534',
    pa: { name: 'Plateforme Exemple SAS', siren: '552032534', matricule: '0145' },
    mandateNumber: '552032534_0145_20261122_01',
    issuedOn: '2026-11-22',
    entryId: 'entry-1',
    signature: { kind: 'typed' },
  });

const startxref = (pdf: Uint8Array) =>
  Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(Buffer.from(pdf).toString('latin1'))![1]);

const check = qpdfCheckedPdfsig;

describe('opening a PDF for the incremental update', () => {
  it('parses only the objects looked up in a file with cross-reference tables (our mandates)', async () => {
    const pdf = await mandate();
    const parsed: string[] = [];
    const doc = openLazily(pdf, startxref(pdf), (_, object) =>
      parsed.push(String((object as PDFDict).get(PDFName.of('Type')))),
    )!;
    expect(doc).toBeDefined();
    expect(doc.getPageCount()).toBe(1);
    expect(parsed.sort()).toEqual(['/Catalog', '/Page', '/Pages']); // no font, no content stream
  });

  it('follows /Prev through earlier sections: a sealed mandate sealed again keeps both seals valid', async () => {
    const once = await sealPdf(await mandate(), testSealKey(), INFO, (doc) => addAuditPage(doc, FACTS));
    expect(openLazily(once, startxref(once), () => {})?.getPageCount()).toBe(2);
    const twice = await sealPdf(once, testSealKey(), { ...INFO, reason: 'again' });
    const report = check(twice);
    expect(report.match(/Signature Validation: Signature is Valid\./g)).toHaveLength(2);
    expect(report).toMatch(/Signature Field Name: Seal1[\s\S]*Signature Field Name: Seal2/);
    expect(pdfText(twice)).toContain('PISTE D’AUDIT');
  });

  it('loads the whole file when it has cross-reference streams, or a table that does not point at its objects', async () => {
    const doc = await PDFDocument.create();
    doc.addPage().drawText('Mandat 552032534_0145_20261122_01', { font: await doc.embedFont(StandardFonts.Helvetica) });
    const withStreams = await doc.save(); // object streams and a cross-reference stream
    expect(openLazily(withStreams, startxref(withStreams), () => {})).toBeUndefined();

    const pdf = Buffer.from(await mandate());
    const table = pdf.indexOf('xref\n0 ');
    const entry = pdf.indexOf(' n ', table) - 16; // the first object's offset, made to point elsewhere
    pdf.write('0000000001', entry, 'latin1');
    expect(openLazily(pdf, startxref(pdf), () => {})).toBeUndefined();
    for (const file of [withStreams, pdf]) {
      expect(check(await sealPdf(file, testSealKey(), INFO, (d) => addAuditPage(d, FACTS)))).toContain(
        'Signature Validation: Signature is Valid.',
      );
    }
  });
});
