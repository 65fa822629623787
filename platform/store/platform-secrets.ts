// The platform's own secrets kept encrypted in the store (AES-256-GCM, platform/crypto/data-box) rather than in the
// environment: the PPF Annuaire client secret and the SML client key. Set with `npm run secret:set -- --name <name>`
// (the value is read from standard input, never from the command line); they take precedence over the environment.
import type { DataBox } from '../crypto/data-box';
import type { Queryable } from './db';
import type { Config } from '../config/index';

export const PLATFORM_SECRETS = {
  'ppf-client-secret': 'the OAuth client secret of the PPF Annuaire (PISTE)',
  'sml-tls-key': 'the PEM private key of the SMP certificate presented to the SML',
} as const;
export type PlatformSecretName = keyof typeof PLATFORM_SECRETS;

const context = (name: string) => `platform-secret:${name}`;

export async function putPlatformSecret(
  db: Queryable,
  box: DataBox,
  name: PlatformSecretName,
  value: string,
): Promise<void> {
  await db.query(
    `INSERT INTO platform_secrets (name, sealed) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET sealed = EXCLUDED.sealed, updated_at = now()`,
    [name, box.seal(Buffer.from(value, 'utf8'), context(name))],
  );
}

/** Names and dates of the stored secrets, never their values. */
export async function listPlatformSecrets(db: Queryable): Promise<{ name: string; updated_at: string }[]> {
  const { rows } = await db.query<{ name: string; updated_at: Date }>(
    'SELECT name, updated_at FROM platform_secrets ORDER BY name',
  );
  return rows.map((r) => ({ name: r.name, updated_at: r.updated_at.toISOString() }));
}

/** The configuration with the stored secrets in place of the environment's; `used` names those applied. */
export async function withStoredSecrets(
  config: Config,
  db: Queryable,
  box: DataBox,
): Promise<{ config: Config; used: string[] }> {
  const { rows } = await db.query<{ name: string; sealed: Uint8Array }>('SELECT name, sealed FROM platform_secrets');
  const value = (name: PlatformSecretName) => {
    const row = rows.find((r) => r.name === name);
    return row && box.open(row.sealed, context(name)).toString('utf8');
  };
  const ppf = value('ppf-client-secret');
  const smlKey = value('sml-tls-key');
  return {
    config: { ...config, ...(ppf && { ANNUAIRE_CLIENT_SECRET: ppf }), ...(smlKey && { smlTlsKeyPem: smlKey }) },
    used: rows.map((r) => r.name),
  };
}
