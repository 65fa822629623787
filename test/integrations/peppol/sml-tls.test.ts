// Mutual TLS to the SML: with the configured client certificate the SML answers; without it the TLS handshake fails.
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSelfSigned } from '../../../platform/crypto/dev-certificates';
import { createSmlClient } from '../../../integrations/peppol/sml-client';
import { smlDispatcher } from '../../../integrations/peppol/sml-tls';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sml-tls-'));
const server = generateSelfSigned('localhost');
const client = generateSelfSigned('Our SMP');
let sml: https.Server;
let url: string;
const seenClients: string[] = [];

beforeAll(async () => {
  sml = https.createServer(
    { key: server.keyPem, cert: server.certPem, ca: client.certPem, requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      seenClients.push(String((req.socket as import('node:tls').TLSSocket).getPeerCertificate().subject.CN));
      res.writeHead(200, { 'content-type': 'text/xml' });
      res.end(
        `<S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"><S:Body><CreateParticipantIdentifierResponse xmlns="http://busdox.org/serviceMetadata/ManageBusinessIdentifierService/1.0/"/></S:Body></S:Envelope>`,
      );
    },
  );
  await new Promise<void>((r) => sml.listen(0, '127.0.0.1', () => r()));
  url = `https://localhost:${(sml.address() as AddressInfo).port}`;
  for (const [name, pem] of Object.entries({
    'client.cert.pem': client.certPem,
    'client.key.pem': client.keyPem,
    'ca.pem': server.certPem,
  })) {
    fs.writeFileSync(path.join(dir, name), pem);
  }
});
afterAll(() => new Promise<void>((r) => sml.close(() => r())));

describe('SML over mutual TLS', () => {
  it('presents the configured client certificate', async () => {
    const dispatcher = smlDispatcher({
      SML_TLS_CERT_FILE: path.join(dir, 'client.cert.pem'),
      SML_TLS_KEY_FILE: path.join(dir, 'client.key.pem'),
      SML_TLS_CA_FILE: path.join(dir, 'ca.pem'),
    });
    const sml = createSmlClient({ url, smpId: 'OUR-SMP', dispatcher });
    await sml.create('iso6523-actorid-upis::0225:552032534');
    expect(seenClients).toEqual(['Our SMP']);
  });

  it('is refused without it', async () => {
    const noCert = smlDispatcher({
      SML_TLS_CERT_FILE: undefined,
      SML_TLS_KEY_FILE: undefined,
      SML_TLS_CA_FILE: undefined,
    });
    expect(noCert).toBeUndefined();
    // The server's certificate is trusted, but we present none: the SML closes the handshake.
    const sml = createSmlClient({ url, smpId: 'OUR-SMP', dispatcher: new Agent({ connect: { ca: server.certPem } }) });
    await expect(sml.create('iso6523-actorid-upis::0225:552032534')).rejects.toMatchObject({ retryable: true });
    expect(seenClients).toEqual(['Our SMP']);
    expect(() =>
      smlDispatcher({ SML_TLS_CERT_FILE: 'x', SML_TLS_KEY_FILE: undefined, SML_TLS_CA_FILE: undefined }),
    ).toThrow(/go together/);
  });
});
