// How the processes reach Temporal: plain gRPC by default, TLS with an API key or a client certificate (Cloud).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { temporalConnectionOptions } from '../../bin/context';
import { loadConfig } from '../../platform/config';

describe('Temporal connection options', () => {
  it('plain to the dev server, TLS with an API key or a client certificate for Temporal Cloud', () => {
    expect(temporalConnectionOptions(loadConfig({}))).toEqual({ address: '127.0.0.1:7233' });
    const cloud = loadConfig({
      TEMPORAL_ADDRESS: 'pa.a1b2c.tmprl.cloud:7233',
      TEMPORAL_NAMESPACE: 'pa.a1b2c',
      TEMPORAL_API_KEY: 'key-123',
    });
    expect(temporalConnectionOptions(cloud)).toEqual({
      address: 'pa.a1b2c.tmprl.cloud:7233',
      tls: {},
      apiKey: 'key-123',
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tls-'));
    fs.writeFileSync(path.join(dir, 'c.pem'), 'CERT');
    fs.writeFileSync(path.join(dir, 'k.pem'), 'KEY');
    const mtls = temporalConnectionOptions(
      loadConfig({ TEMPORAL_TLS_CERT_FILE: path.join(dir, 'c.pem'), TEMPORAL_TLS_KEY_FILE: path.join(dir, 'k.pem') }),
    );
    expect(mtls.tls?.clientCertPair?.crt.toString()).toBe('CERT');
    expect(mtls.tls?.clientCertPair?.key.toString()).toBe('KEY');
    expect(() => temporalConnectionOptions(loadConfig({ TEMPORAL_TLS_CERT_FILE: path.join(dir, 'c.pem') }))).toThrow(
      /go together/,
    );
    fs.rmSync(dir, { recursive: true });
  });
});
