// The certificate sealing confirmed mandates: from config (PEM files) or, in development, a self-signed one
// generated once under DATA_DIR/certs.
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../platform/config';
import type { SealKey } from './seal';
import { devCertificate } from '../../platform/crypto/dev-certificates';

export function sealKeyFromConfig(
  c: Pick<Config, 'SEAL_KEY_FILE' | 'SEAL_CERT_FILE' | 'dataDir' | 'PA_NAME'>,
): SealKey {
  if (c.SEAL_KEY_FILE && c.SEAL_CERT_FILE) {
    return { keyPem: fs.readFileSync(c.SEAL_KEY_FILE, 'utf8'), certPem: fs.readFileSync(c.SEAL_CERT_FILE, 'utf8') };
  }
  return devCertificate(path.join(c.dataDir, 'certs'), 'mandate-seal', `${c.PA_NAME} (development seal)`);
}
