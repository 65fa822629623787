// Self-signed development key + certificate (node-forge), generated once and kept in a directory, for when no real
// certificate is configured (SMP signing, AP endpoint, the mandate seal). Never for production: nobody trusts them.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import forge from 'node-forge';

export interface KeyPair {
  keyPem: string;
  certPem: string;
}

/**
 * Loads `<dir>/<name>.key.pem` and `<name>.cert.pem`, creating them (RSA 2048, 10 years, CN=`commonName`) when
 * absent. Files are written to temporary names then renamed, so a crash never leaves a key without its certificate.
 */
export function devCertificate(dir: string, name: string, commonName: string): KeyPair {
  const keyFile = path.join(dir, `${name}.key.pem`);
  const certFile = path.join(dir, `${name}.cert.pem`);
  if (fs.existsSync(keyFile) && fs.existsSync(certFile)) {
    return { keyPem: fs.readFileSync(keyFile, 'utf8'), certPem: fs.readFileSync(certFile, 'utf8') };
  }
  const pair = generateSelfSigned(commonName);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(`${keyFile}.tmp`, pair.keyPem, { mode: 0o600 });
  fs.writeFileSync(`${certFile}.tmp`, pair.certPem);
  fs.renameSync(`${keyFile}.tmp`, keyFile);
  fs.renameSync(`${certFile}.tmp`, certFile);
  return pair;
}

export function generateSelfSigned(commonName: string, years = 10): KeyPair {
  // Node's generator (forge would do it in pure JS, seconds per key).
  const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  // A small positive serial: some verifiers (libxml2's xmlsec) reject serials that overflow a long.
  cert.serialNumber = '01' + crypto.randomBytes(3).toString('hex');
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + years * 365 * 86_400_000);
  const subject = [
    { name: 'commonName', value: commonName },
    { name: 'countryName', value: 'FR' },
    { name: 'organizationName', value: 'Development only' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(keyPem), forge.md.sha256.create());
  return { keyPem, certPem: forge.pki.certificateToPem(cert) };
}

/** The certificate's DER as base64 on one line, as SMP `Certificate` elements carry it. */
export function certificateBase64(certPem: string): string {
  return new crypto.X509Certificate(certPem).raw.toString('base64');
}
