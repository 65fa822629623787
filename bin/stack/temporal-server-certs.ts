// The certificates of a test cluster behind mutual TLS: a CA of its own, the frontend's, ours and the server's
// system workers'.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import forge from 'node-forge';

/**
 * A test CA, the frontend's certificate (localhost and 127.0.0.1), a client certificate for our processes and one for
 * the server's system workers, written under `<dir>/certs`.
 */
export function writeCertificates(dir: string) {
  const certs = path.join(dir, 'certs');
  fs.mkdirSync(certs);
  const ca = issue({ cn: 'PA test Temporal CA', ca: true });
  const server = issue({ cn: 'temporal-frontend', issuer: ca, server: true });
  const client = issue({ cn: 'pa-service', issuer: ca });
  const worker = issue({ cn: 'temporal-system-worker', issuer: ca });
  const write = (name: string, pem: string) => {
    const file = path.join(certs, name);
    fs.writeFileSync(file, pem, { mode: 0o600 });
    return file;
  };
  return {
    caPem: ca.certPem,
    clientCertPem: client.certPem,
    clientKeyPem: client.keyPem,
    serverName: 'localhost',
    caFile: write('ca.pem', ca.certPem),
    clientCertFile: write('client.pem', client.certPem),
    clientKeyFile: write('client.key', client.keyPem),
    serverCertFile: write('server.pem', server.certPem),
    serverKeyFile: write('server.key', server.keyPem),
    workerCertFile: write('system-worker.pem', worker.certPem),
    workerKeyFile: write('system-worker.key', worker.keyPem),
  };
}

interface Issued {
  keyPem: string;
  certPem: string;
  subject: forge.pki.CertificateField[];
}

/** An RSA key (Node's generator: forge's is slow) and its certificate, signed by `issuer` or self-signed. */
function issue(o: { cn: string; ca?: boolean; server?: boolean; issuer?: Issued }): Issued {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  // Positive (leading byte below 0x80): Go's x509 refuses negative serial numbers.
  cert.serialNumber = '01' + crypto.randomBytes(8).toString('hex');
  cert.validity.notBefore = new Date(Date.now() - 3_600_000);
  cert.validity.notAfter = new Date(Date.now() + 365 * 86_400_000);
  const subject = [{ name: 'commonName', value: o.cn }];
  cert.setSubject(subject);
  cert.setIssuer(o.issuer?.subject ?? subject);
  // What Go's and rustls' verifiers insist on: CA flag and key usages, serverAuth/clientAuth, names in the SAN.
  cert.setExtensions(
    o.ca
      ? [
          { name: 'basicConstraints', cA: true, critical: true },
          { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
          { name: 'subjectKeyIdentifier' },
        ]
      : [
          { name: 'basicConstraints', cA: false },
          { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
          { name: 'extKeyUsage', serverAuth: !!o.server, clientAuth: !o.server },
          ...(o.server
            ? [
                {
                  name: 'subjectAltName',
                  altNames: [
                    { type: 2, value: 'localhost' },
                    { type: 7, ip: '127.0.0.1' },
                  ],
                },
              ]
            : []),
        ],
  );
  cert.sign(forge.pki.privateKeyFromPem(o.issuer?.keyPem ?? keyPem), forge.md.sha256.create());
  return { keyPem, certPem: forge.pki.certificateToPem(cert), subject };
}
