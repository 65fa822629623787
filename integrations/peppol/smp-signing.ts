// Enveloped XMLDSig of SMP responses, as Peppol SMP 1.x requires: RSA-SHA256, SHA-256 digest, inclusive C14N,
// Reference URI="" with the enveloped-signature transform, the signer certificate in KeyInfo/X509Data.
import { SignedXml } from 'xml-crypto';

const C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';

export interface XmlSigner {
  /** Appends a ds:Signature as the last child of the document's root element. */
  sign(xml: string): string;
}

export function createXmlSigner(keyPem: string, certPem: string): XmlSigner {
  return {
    sign(xml) {
      const sig = new SignedXml({
        privateKey: keyPem,
        publicCert: certPem,
        signatureAlgorithm: RSA_SHA256,
        canonicalizationAlgorithm: C14N,
      });
      // xml-crypto's default KeyInfo is X509Data with X509Certificate only: no X509IssuerSerial, whose big
      // serial numbers libxml2-based verifiers (xmlsec1) refuse.
      sig.addReference({ xpath: '/*', transforms: [ENVELOPED, C14N], digestAlgorithm: SHA256, isEmptyUri: true });
      sig.computeSignature(xml, { location: { reference: '/*', action: 'append' } });
      return sig.getSignedXml();
    },
  };
}
