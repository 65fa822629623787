// A throw-away certification authority for tests and benchmarks: it issues signing certificates naming a person
// (givenName, surname, commonName), as a qualified CA's do, so that a platform configured to trust it
// (SIGNATURE_TRUST_ANCHORS_FILE) can bind a digital signature to that person. node-forge; RSA keys from Node.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import forge from 'node-forge';
import type { SealKey } from '../../domain/mandate-document/seal';

export interface TestCa {
  certPem: string;
  /** A PEM file holding the CA's certificate, for SIGNATURE_TRUST_ANCHORS_FILE. */
  file: string;
  /**
   * A signing certificate (and its key) naming this person, valid from a minute ago for a year; `tls`: a server's
   * certificate instead (key encipherment, serverAuth), which must not bind a signature.
   */
  issue(person: { given: string; surname: string }, use?: 'signing' | 'tls'): SealKey;
}

function keyPair() {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString()),
  };
}

function certificate(
  subject: forge.pki.CertificateField[],
  publicKey: forge.pki.PublicKey,
  use: 'ca' | 'signing' | 'tls',
) {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = '01' + crypto.randomBytes(6).toString('hex');
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 365 * 86_400_000);
  cert.setSubject(subject);
  const extensions = {
    ca: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
    signing: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true },
    ],
    tls: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
    ],
  }[use];
  cert.setExtensions([...extensions, { name: 'subjectKeyIdentifier' }]);
  return cert;
}

export function testCa(name = 'Test Qualified CA'): TestCa {
  const root = keyPair();
  const subject = [
    { name: 'commonName', value: name },
    { name: 'organizationName', value: 'Tests only' },
    { name: 'countryName', value: 'FR' },
  ];
  const caCert = certificate(subject, root.publicKey, 'ca');
  caCert.setIssuer(subject);
  caCert.sign(forge.pki.privateKeyFromPem(root.keyPem), forge.md.sha256.create());
  const certPem = forge.pki.certificateToPem(caCert);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'test-ca-')), 'anchors.pem');
  fs.writeFileSync(file, certPem);
  return {
    certPem,
    file,
    issue(person, use = 'signing') {
      const leaf = keyPair();
      const cert = certificate(
        [
          { name: 'commonName', value: `${person.given} ${person.surname}`, valueTagClass: forge.asn1.Type.UTF8 },
          { type: '2.5.4.42', value: person.given, valueTagClass: forge.asn1.Type.UTF8 },
          { type: '2.5.4.4', value: person.surname, valueTagClass: forge.asn1.Type.UTF8 },
          { name: 'countryName', value: 'FR' },
        ] as forge.pki.CertificateField[],
        leaf.publicKey,
        use,
      );
      cert.setIssuer(caCert.subject.attributes);
      cert.sign(forge.pki.privateKeyFromPem(root.keyPem), forge.md.sha256.create());
      return { keyPem: leaf.keyPem, certPem: forge.pki.certificateToPem(cert) };
    },
  };
}
