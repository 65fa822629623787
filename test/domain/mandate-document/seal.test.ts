// The seal as a PAdES validator and a company's lawyer would check it, with independent tools (poppler's pdfsig,
// qpdf, openssl) reading the files.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as pkijs from 'pkijs';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { addAuditPage } from '../../../domain/mandate-document/audit-page';
import { sealPdf, type SealKey } from '../../../domain/mandate-document/seal';
import { generateSelfSigned } from '../../../platform/crypto/dev-certificates';
import { testSealKey } from '../../support/seal-key';
import { pdfText } from '../../support/pdf-text';
import { qpdfCheckedPdfsig } from '../../support/pdf-check';
import { SEAL_INFO, auditFacts } from '../../support/seal-facts';

const INFO = SEAL_INFO;
const FACTS = auditFacts('upload');

/** A one-page PDF as another tool would write it: pdf-lib's defaults use object streams and an xref stream. */
async function mandateFromElsewhere(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage().drawText('Mandat 552032534_0145_20261122_01', { font: await doc.embedFont(StandardFonts.Helvetica) });
  return doc.save();
}

const pdfsig = qpdfCheckedPdfsig;

/** The CMS of the file's last signature, from its /Contents (hex, zero-padded). */
function lastCms(pdf: Uint8Array): pkijs.SignedData {
  const all = [
    ...Buffer.from(pdf)
      .toString('latin1')
      .matchAll(/\/Contents\s*<([0-9a-fA-F]+)>/g),
  ];
  const der = Buffer.from(all.at(-1)![1]!, 'hex');
  const info = pkijs.ContentInfo.fromBER(der);
  return new pkijs.SignedData({ schema: info.content });
}

describe('the seal', () => {
  it('is PAdES baseline B-B: content-type, message-digest and signing-certificate-v2, no signing-time', async () => {
    const sealed = await sealPdf(await mandateFromElsewhere(), testSealKey(), INFO);
    const report = pdfsig(sealed);
    expect(report).toContain('Signature Type: ETSI.CAdES.detached');
    expect(report).toContain('Signature Validation: Signature is Valid.');
    expect(report).toContain('Total document signed');

    const cms = lastCms(sealed);
    const attrs = cms.signerInfos[0]!.signedAttrs!.attributes;
    expect(attrs.map((a) => a.type).sort()).toEqual([
      '1.2.840.113549.1.9.16.2.47',
      '1.2.840.113549.1.9.3',
      '1.2.840.113549.1.9.4',
    ]);
    expect(attrs.some((a) => a.type === '1.2.840.113549.1.9.5')).toBe(false); // signing-time
    // The ESS certificate hash is the SHA-256 of the signer's certificate, as openssl computes it.
    const certDer = execFileSync('openssl', ['x509', '-outform', 'DER'], { input: testSealKey().certPem });
    const ess = Buffer.from(attrs.find((a) => a.type.endsWith('.2.47'))!.values[0].toBER());
    expect(ess.includes(crypto.createHash('sha256').update(certDer).digest())).toBe(true);
    expect(cms.digestAlgorithms.map((a) => a.algorithmId)).toEqual(['2.16.840.1.101.3.4.2.1']);
  });

  it('keeps the signature a company put on its uploaded mandate valid: audit page and seal are an incremental update', async () => {
    const companyKey = generateSelfSigned('Company representative');
    const signedByCompany = await sealPdf(await mandateFromElsewhere(), companyKey, { ...INFO, name: 'Élodie Martin' });
    const final = await sealPdf(signedByCompany, testSealKey(), INFO, (doc) => addAuditPage(doc, FACTS));

    expect(Buffer.from(final.subarray(0, signedByCompany.length)).equals(Buffer.from(signedByCompany))).toBe(true);
    const report = pdfsig(final);
    const [first, second] = report.split(/Signature #2:/);
    expect(first).toContain('Signer Certificate Common Name: Company representative');
    expect(first).toContain('Signature Validation: Signature is Valid.');
    expect(first).toContain('Not total document signed');
    expect(second).toContain('Signer Certificate Common Name: Test PA (mandate seal)');
    expect(second).toContain('Signature Validation: Signature is Valid.');
    expect(second).toContain('Total document signed');
    expect(report).toMatch(/Signature Field Name: (\S+)[\s\S]*Signature Field Name: (?!\1)/); // two distinct fields
    expect((await PDFDocument.load(final)).getPageCount()).toBe(2);
    expect(pdfText(final)).toContain('PISTE D’AUDIT');
  });

  it('works with an EC (P-256) certificate as well as RSA', async () => {
    const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ec-seal-'));
    fs.writeFileSync(path.join(dir, 'key.pem'), keyPem);
    const certPem = execFileSync(
      'openssl',
      ['req', '-x509', '-new', '-key', path.join(dir, 'key.pem'), '-days', '2', '-subj', '/CN=EC seal/O=Test/C=FR'],
      { encoding: 'utf8' },
    );
    fs.rmSync(dir, { recursive: true });
    const key: SealKey = { keyPem, certPem };
    const report = pdfsig(await sealPdf(await mandateFromElsewhere(), key, INFO));
    expect(report).toContain('Signer Certificate Common Name: EC seal');
    expect(report).toContain('Signature Validation: Signature is Valid.');
  });
});
