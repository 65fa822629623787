// Mutual TLS to the SML: production SMLs only talk to SMPs presenting their Peppol SMP certificate.
import fs from 'node:fs';
import { Agent } from 'undici';
import type { Config } from '../../platform/config';

type TlsConfig = Pick<Config, 'SML_TLS_CERT_FILE' | 'SML_TLS_KEY_FILE' | 'SML_TLS_CA_FILE' | 'smlTlsKeyPem'>;

/** An undici dispatcher presenting our client certificate, or undefined when none is configured. */
export function smlDispatcher(c: TlsConfig): Agent | undefined {
  const hasKey = Boolean(c.smlTlsKeyPem || c.SML_TLS_KEY_FILE);
  if (!c.SML_TLS_CERT_FILE && !hasKey) return undefined;
  if (!c.SML_TLS_CERT_FILE || !hasKey)
    throw new Error(
      'the SML client certificate (SML_TLS_CERT_FILE) and its key (SML_TLS_KEY_FILE or the stored sml-tls-key) go together',
    );
  return new Agent({
    connect: {
      cert: fs.readFileSync(c.SML_TLS_CERT_FILE, 'utf8'),
      key: c.smlTlsKeyPem ?? fs.readFileSync(c.SML_TLS_KEY_FILE!, 'utf8'),
      ...(c.SML_TLS_CA_FILE && { ca: fs.readFileSync(c.SML_TLS_CA_FILE, 'utf8') }),
    },
  });
}
