// Mutual TLS to the SML: production SMLs only talk to SMPs presenting their Peppol SMP certificate.
import fs from 'node:fs';
import { Agent } from 'undici';
import type { Config } from '../config';

type TlsConfig = Pick<Config, 'SML_TLS_CERT_FILE' | 'SML_TLS_KEY_FILE' | 'SML_TLS_CA_FILE'>;

/** An undici dispatcher presenting our client certificate, or undefined when none is configured. */
export function smlDispatcher(c: TlsConfig): Agent | undefined {
  if (!c.SML_TLS_CERT_FILE && !c.SML_TLS_KEY_FILE) return undefined;
  if (!c.SML_TLS_CERT_FILE || !c.SML_TLS_KEY_FILE) throw new Error('SML_TLS_CERT_FILE and SML_TLS_KEY_FILE go together');
  return new Agent({
    connect: {
      cert: fs.readFileSync(c.SML_TLS_CERT_FILE, 'utf8'),
      key: fs.readFileSync(c.SML_TLS_KEY_FILE, 'utf8'),
      ...(c.SML_TLS_CA_FILE && { ca: fs.readFileSync(c.SML_TLS_CA_FILE, 'utf8') }),
    },
  });
}
