// The CMS inside the seal, as PAdES baseline B-B (ETSI EN 319 142-1 §5.1) requires: detached SignedData over the
// PDF's byte ranges, signed attributes content-type, message-digest and ESS signing-certificate-v2 (binding the
// signer's certificate), and no signing-time attribute (the time is the signature dictionary's /M). The structures
// are pkijs's; the signature is Node's crypto, synchronous (WebCrypto's round trip to the thread pool cost more).
import crypto from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { Signer } from '@signpdf/utils';

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

/** A certificate that keeps its parsed ASN.1: pkijs would otherwise rebuild it for every signature. */
class ParsedCertificate extends pkijs.Certificate {
  readonly #schema: asn1js.Sequence;
  constructor(der: Uint8Array) {
    const schema = asn1js.fromBER(der).result as asn1js.Sequence;
    super({ schema });
    this.#schema = schema;
  }
  override toSchema(): asn1js.Sequence {
    return this.#schema;
  }
}

interface Prepared {
  cert: pkijs.Certificate;
  certDer: Buffer;
  key: crypto.KeyObject;
  signatureAlgorithm: pkijs.AlgorithmIdentifier;
  /** The ESS signing-certificate-v2 attribute value: the same for every seal made with this key. */
  signingCertificate: asn1js.Sequence;
}
const prepared = new WeakMap<SealKey, Prepared>();

function prepare(k: SealKey): Prepared {
  const certDer = new crypto.X509Certificate(k.certPem).raw;
  const cert = new ParsedCertificate(certDer);
  const key = crypto.createPrivateKey(k.keyPem);
  if (key.asymmetricKeyType !== 'rsa' && key.asymmetricKeyType !== 'ec') throw new Error(`the seal key must be RSA or EC, not ${key.asymmetricKeyType}`);
  const signatureAlgorithm =
    key.asymmetricKeyType === 'rsa'
      ? new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256WithRSAEncryption, algorithmParams: new asn1js.Null() })
      : new pkijs.AlgorithmIdentifier({ algorithmId: OID.ecdsaWithSHA256 });
  const partial = { cert, certDer };
  return { ...partial, key, signatureAlgorithm, signingCertificate: signingCertificateV2(partial) };
}

/** SigningCertificateV2 ::= SEQUENCE { certs SEQUENCE OF ESSCertIDv2 } — SHA-256 is the default hash, so omitted. */
function signingCertificateV2(p: Pick<Prepared, 'cert' | 'certDer'>): asn1js.Sequence {
  const issuerSerial = new pkijs.IssuerSerial({
    issuer: new pkijs.GeneralNames({ names: [new pkijs.GeneralName({ type: 4, value: p.cert.issuer })] }),
    serialNumber: p.cert.serialNumber,
  });
  const certHash = crypto.createHash('sha256').update(p.certDer).digest();
  const essCertIdV2 = new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: certHash }), issuerSerial.toSchema()] });
  return new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] });
}

/** The DER CMS of a PAdES B-B signature over `content` (the PDF without its /Contents placeholder). */
export function padesCms(content: Uint8Array, sealKey: SealKey): Buffer {
  let ready = prepared.get(sealKey);
  if (!ready) prepared.set(sealKey, (ready = prepare(sealKey)));
  const sha256 = new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 });
  const digest = crypto.createHash('sha256').update(content).digest();
  const attribute = (type: string, value: asn1js.AsnType) => new pkijs.Attribute({ type, values: [value] });
  const signedAttrs = new pkijs.SignedAndUnsignedAttributes({
    type: 0,
    attributes: [
      attribute(OID.contentType, new asn1js.ObjectIdentifier({ value: OID.data })),
      attribute(OID.messageDigest, new asn1js.OctetString({ valueHex: digest })),
      attribute(OID.signingCertificateV2, ready.signingCertificate),
    ],
  });
  // What is signed is the attributes' DER with the SET OF tag, not the [0] IMPLICIT tag they carry in SignerInfo.
  const toSign = Buffer.from(signedAttrs.toSchema().toBER(false));
  toSign[0] = 0x31;
  const signerInfo = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: ready.cert.issuer, serialNumber: ready.cert.serialNumber }),
    digestAlgorithm: sha256,
    signedAttrs,
    signatureAlgorithm: ready.signatureAlgorithm,
    // ECDSA signatures come out DER-encoded, as CMS wants them.
    signature: new asn1js.OctetString({ valueHex: crypto.sign('sha256', toSign, ready.key) }),
  });
  const signed = new pkijs.SignedData({
    version: 1,
    digestAlgorithms: [sha256],
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
    signerInfos: [signerInfo],
    certificates: [ready.cert],
  });
  const info = new pkijs.ContentInfo({ contentType: OID.signedData, content: signed.toSchema(true) });
  return Buffer.from(info.toSchema().toBER(false));
}

/** The seal's signer for @signpdf: the CMS above instead of the package's node-forge PKCS#7. */
export class PadesSigner extends Signer {
  constructor(private readonly sealKey: SealKey) {
    super();
  }
  override async sign(pdfBuffer: Buffer): Promise<Buffer> {
    return padesCms(pdfBuffer, this.sealKey);
  }
}
