// Who a digital signature's certificate names, and whether the platform believes it: its chain must lead to one of
// the trust anchors the platform configures (SIGNATURE_TRUST_ANCHORS_FILE: the qualified CAs it accepts, e.g. from
// the EU trusted lists) and be valid on the day of the check. A certificate anyone can make (self-signed, or from a
// CA not listed) names whoever its maker typed: it is recorded, and binds no one. Revocation (OCSP, CRL) is not
// checked here: README, "Checks of each submission".
import crypto from 'node:crypto';
import fs from 'node:fs';
import * as pkijs from 'pkijs';

export interface CertificateFacts {
  /** The subject as written (RFC 4514 order reversed to read naturally: CN first). */
  subject: string;
  /** The person it names: givenName and surname when present, else its common name. */
  names: { given?: string; surname?: string; common?: string };
  issuer: string;
  serial: string;
  not_before: string;
  not_after: string;
  sha256: string;
  /** Whether its chain leads to a configured trust anchor and holds on the day of the check. */
  trusted: boolean;
  /** Why it is, or is not, trusted: in a word, then in English. */
  trust_code: 'trusted' | 'no-anchors' | 'wrong-use' | 'self-signed' | 'not-chained';
  trust: string;
}

const ATTRIBUTE_NAMES: Record<string, string> = {
  '2.5.4.3': 'CN',
  '2.5.4.4': 'SN',
  '2.5.4.5': 'serialNumber',
  '2.5.4.6': 'C',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.42': 'GN',
  '2.5.4.97': 'organizationIdentifier',
};

function attributes(name: pkijs.RelativeDistinguishedNames): { type: string; value: string }[] {
  return name.typesAndValues.map((tv) => ({
    type: ATTRIBUTE_NAMES[tv.type] ?? tv.type,
    value: String((tv.value as { valueBlock?: { value?: unknown } }).valueBlock?.value ?? ''),
  }));
}

const written = (name: pkijs.RelativeDistinguishedNames) =>
  attributes(name)
    .map((a) => `${a.type}=${a.value}`)
    .join(', ');

const parse = (der: Uint8Array) =>
  pkijs.Certificate.fromBER(der.buffer.slice(der.byteOffset, der.byteOffset + der.byteLength) as ArrayBuffer);

/** The certificates of a PEM bundle; a file without one, or with one that does not parse, fails the start. */
export function loadTrustAnchors(file: string): pkijs.Certificate[] {
  const pem = fs.readFileSync(file, 'utf8');
  const blocks = [...pem.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)];
  if (blocks.length === 0) throw new Error(`signature trust anchors ${file}: no PEM certificate in it`);
  return blocks.map((m, i) => {
    try {
      return parse(Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64'));
    } catch (err) {
      throw new Error(
        `signature trust anchors ${file}: certificate ${i + 1} does not parse (${(err as Error).message})`,
      );
    }
  });
}

/** Key purposes a document signature may carry: any, e-mail protection, document signing (RFC 9336), Adobe's, Microsoft's. */
const SIGNING_PURPOSES = new Set([
  '2.5.29.37.0',
  '1.3.6.1.5.5.7.3.4',
  '1.3.6.1.5.5.7.3.36',
  '1.2.840.113583.1.1.5',
  '1.3.6.1.4.1.311.10.3.12',
]);

/** Why the certificate may not sign documents (its key usage, its extended key usage), if it may not. */
function notForSigning(cert: pkijs.Certificate): string | undefined {
  const ext = (id: string) => cert.extensions?.find((e) => e.extnID === id);
  const ku = ext('2.5.29.15')?.parsedValue as { valueBlock?: { valueHexView?: Uint8Array } } | undefined;
  const bits = ku?.valueBlock?.valueHexView?.[0];
  // digitalSignature (0x80) or nonRepudiation/contentCommitment (0x40)
  if (ku && bits !== undefined && (bits & 0xc0) === 0) return 'its key usage does not allow signing';
  const eku = ext('2.5.29.37')?.parsedValue as { keyPurposes?: string[] } | undefined;
  if (eku?.keyPurposes && !eku.keyPurposes.some((p) => SIGNING_PURPOSES.has(p)))
    return `its extended key usage (${eku.keyPurposes.join(', ')}) is not for signing documents`;
  return undefined;
}

/** What the signer's certificate says, and whether its chain leads to one of `anchors` on `at`. */
export async function certificateFacts(
  c: { signer: Uint8Array; others: Uint8Array[] },
  anchors: pkijs.Certificate[],
  at = new Date(),
): Promise<CertificateFacts> {
  const cert = parse(c.signer);
  const subject = attributes(cert.subject);
  const first = (type: string) => subject.find((a) => a.type === type)?.value;
  const [given, surname, common] = [first('GN'), first('SN'), first('CN')];
  const facts = {
    subject: written(cert.subject),
    names: { ...(given && { given }), ...(surname && { surname }), ...(common && { common }) },
    issuer: written(cert.issuer),
    serial: Buffer.from(cert.serialNumber.valueBlock.valueHexView).toString('hex'),
    not_before: cert.notBefore.value.toISOString(),
    not_after: cert.notAfter.value.toISOString(),
    sha256: crypto.createHash('sha256').update(c.signer).digest('hex'),
  };
  if (anchors.length === 0)
    return {
      ...facts,
      trusted: false,
      trust_code: 'no-anchors',
      trust: 'no trust anchors are configured (SIGNATURE_TRUST_ANCHORS_FILE)',
    };
  const wrongUse = notForSigning(cert);
  if (wrongUse) return { ...facts, trusted: false, trust_code: 'wrong-use', trust: wrongUse };
  try {
    const engine = new pkijs.CertificateChainValidationEngine({
      trustedCerts: anchors,
      certs: [...c.others.map(parse), cert],
      checkDate: at,
    });
    const r = await engine.verify();
    if (r.result)
      return { ...facts, trusted: true, trust_code: 'trusted', trust: 'its chain leads to a configured trust anchor' };
    const selfSigned = facts.subject === facts.issuer;
    return {
      ...facts,
      trusted: false,
      trust_code: selfSigned ? 'self-signed' : 'not-chained',
      trust: `its chain does not lead to a configured trust anchor: ${r.resultMessage}`,
    };
  } catch (err) {
    return {
      ...facts,
      trusted: false,
      trust_code: 'not-chained',
      trust: `its chain could not be checked: ${(err as Error).message}`,
    };
  }
}
