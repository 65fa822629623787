// The CMS inside the seal, as PAdES baseline B-B (ETSI EN 319 142-1 §5.1) requires: detached SignedData over the
// PDF's byte ranges, signed attributes content-type, message-digest and ESS signing-certificate-v2 (binding the
// signer's certificate), and no signing-time attribute (the time is the signature dictionary's /M). The signature is
// Node's crypto, synchronous (WebCrypto's round trip to the thread pool cost more).
//
// Only the digest and the signature value change from one seal to the next: the parts that depend on the key alone
// (certificate, signer identifier, ESS attribute) are encoded once with pkijs/asn1js, and each seal assembles its
// DER around them (building and encoding the whole structure with pkijs took a millisecond a seal).
import crypto from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

export interface SealKey {
  keyPem: string;
  certPem: string;
}

const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha256WithRSAEncryption: '1.2.840.113549.1.1.11',
  ecdsaWithSHA256: '1.2.840.10045.4.3.2',
};

const ber = (o: { toBER(): ArrayBuffer }) => Buffer.from(o.toBER());
const oid = (value: string) => ber(new asn1js.ObjectIdentifier({ value }));

/** One DER element: `tag`, the definite length of `parts` together (short or long form), then `parts`. */
function der(tag: number, ...parts: Uint8Array[]): Buffer {
  const length = parts.reduce((n, p) => n + p.length, 0);
  const lengthBytes = length < 0x80 ? 0 : length < 0x100 ? 1 : length < 0x10000 ? 2 : 3;
  const out = Buffer.allocUnsafe(2 + lengthBytes + length);
  out[0] = tag;
  out[1] = lengthBytes ? 0x80 | lengthBytes : length;
  for (let i = 0; i < lengthBytes; i++) out[2 + i] = (length >> (8 * (lengthBytes - 1 - i))) & 0xff;
  let at = 2 + lengthBytes;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
const SEQUENCE = 0x30;
const SET = 0x31;
const OCTET_STRING = 0x04;
const CONTEXT_0 = 0xa0;

const VERSION_1 = Buffer.from([0x02, 0x01, 0x01]);
const SHA256 = ber(new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 }).toSchema());
const DATA = oid(OID.data);
const SIGNED_DATA = oid(OID.signedData);
const MESSAGE_DIGEST = oid(OID.messageDigest);
/** content-type attribute: id-data */
const CONTENT_TYPE_ATTRIBUTE = der(SEQUENCE, oid(OID.contentType), der(SET, DATA));

/** The DER of everything a seal takes from its key and certificate. */
interface Prepared {
  key: crypto.KeyObject;
  certificate: Buffer;
  /** IssuerAndSerialNumber of the certificate */
  signerId: Buffer;
  signatureAlgorithm: Buffer;
  /** the ESS signing-certificate-v2 attribute */
  signingCertificate: Buffer;
}
const prepared = new WeakMap<SealKey, Prepared>();
const maxLengths = new WeakMap<SealKey, number>();

function preparedFor(k: SealKey): Prepared {
  let p = prepared.get(k);
  if (!p) prepared.set(k, (p = prepare(k)));
  return p;
}

/**
 * The most bytes a seal's CMS with this key takes: everything but the signature has a fixed length, and an ECDSA
 * signature (DER integers) varies by a few bytes from one seal to the next, an RSA one not at all.
 */
export function padesCmsMaxLength(sealKey: SealKey): number {
  let n = maxLengths.get(sealKey);
  if (n === undefined) maxLengths.set(sealKey, (n = padesCms([], sealKey).length + 16));
  return n;
}

function prepare(k: SealKey): Prepared {
  const certificate = new crypto.X509Certificate(k.certPem).raw;
  const cert = pkijs.Certificate.fromBER(certificate);
  const key = crypto.createPrivateKey(k.keyPem);
  if (key.asymmetricKeyType !== 'rsa' && key.asymmetricKeyType !== 'ec')
    throw new Error(`the seal key must be RSA or EC, not ${key.asymmetricKeyType}`);
  const signatureAlgorithm =
    key.asymmetricKeyType === 'rsa'
      ? new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256WithRSAEncryption, algorithmParams: new asn1js.Null() })
      : new pkijs.AlgorithmIdentifier({ algorithmId: OID.ecdsaWithSHA256 });
  return {
    key,
    certificate,
    signerId: ber(new pkijs.IssuerAndSerialNumber({ issuer: cert.issuer, serialNumber: cert.serialNumber }).toSchema()),
    signatureAlgorithm: ber(signatureAlgorithm.toSchema()),
    signingCertificate: der(SEQUENCE, oid(OID.signingCertificateV2), der(SET, signingCertificateV2(cert, certificate))),
  };
}

/** SigningCertificateV2 ::= SEQUENCE { certs SEQUENCE OF ESSCertIDv2 } — SHA-256 is the default hash, so omitted. */
function signingCertificateV2(cert: pkijs.Certificate, certDer: Buffer): Buffer {
  const issuerSerial = new pkijs.IssuerSerial({
    issuer: new pkijs.GeneralNames({ names: [new pkijs.GeneralName({ type: 4, value: cert.issuer })] }),
    serialNumber: cert.serialNumber,
  });
  const certHash = crypto.createHash('sha256').update(certDer).digest();
  return der(SEQUENCE, der(SEQUENCE, der(SEQUENCE, der(OCTET_STRING, certHash), ber(issuerSerial.toSchema()))));
}

/** The DER CMS of a PAdES B-B signature over `content`: the parts of the PDF its /ByteRange covers, in order. */
export function padesCms(content: Uint8Array[], sealKey: SealKey): Buffer {
  const k = preparedFor(sealKey);
  const hash = crypto.createHash('sha256');
  for (const part of content) hash.update(part);
  const digest = hash.digest();
  const messageDigest = der(SEQUENCE, MESSAGE_DIGEST, der(SET, der(OCTET_STRING, digest)));
  // DER sorts a SET OF: these three come in this order (their lengths differ in the second byte, ascending).
  const signedAttributes = der(SET, CONTENT_TYPE_ATTRIBUTE, messageDigest, k.signingCertificate);
  // What is signed is the attributes with the SET OF tag; in SignerInfo they carry the [0] IMPLICIT tag instead.
  // ECDSA signatures come out DER-encoded, as CMS wants them.
  const signature = crypto.sign('sha256', signedAttributes, k.key);
  signedAttributes[0] = CONTEXT_0;
  const signerInfo = der(
    SEQUENCE,
    VERSION_1,
    k.signerId,
    SHA256,
    signedAttributes,
    k.signatureAlgorithm,
    der(OCTET_STRING, signature),
  );
  const signedData = der(
    SEQUENCE,
    VERSION_1,
    der(SET, SHA256),
    der(SEQUENCE, DATA),
    der(CONTEXT_0, k.certificate),
    der(SET, signerInfo),
  );
  return der(SEQUENCE, SIGNED_DATA, der(CONTEXT_0, signedData));
}
