// The platform's own secrets from the encrypted store: they replace the environment's, and the raw rows hold no
// plaintext. Shown with the PPF client secret against the Annuaire simulator, which checks it.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../api/app';
import type { Config } from '../../../platform/config';
import { listPlatformSecrets, putPlatformSecret, withStoredSecrets } from '../../../platform/store/platform-secrets';
import { log, startHarness, type Harness } from '../../support/harness';
import { makeSiren } from '../../../bin/stack/sample-parties';
import { testSealKey } from '../../support/seal-key';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

async function lookupWith(config: Config): Promise<number> {
  const app = createApp({ db: h.db, log, temporal: h.client, config, box: h.box, sealKey: testSealKey() });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/apps/gov-fr/v1/directory/siren/${makeSiren()}`;
    return (await fetch(url, { headers: { authorization: `Bearer ${h.apiKey}` } })).status;
  } finally {
    await new Promise((r) => server.close(r));
  }
}

describe('platform secrets in the encrypted store', () => {
  it('replace the environment: a wrong PPF secret in the environment, the right one stored, lookups work', async () => {
    const wrong = { ...h.config, ANNUAIRE_CLIENT_SECRET: 'not-the-secret' };
    expect(await lookupWith(wrong)).toBe(502); // the directory refuses our client
    await putPlatformSecret(h.db, h.box, 'ppf-client-secret', h.config.ANNUAIRE_CLIENT_SECRET);
    const { config, used } = await withStoredSecrets(wrong, h.db, h.box);
    expect(used).toEqual(['ppf-client-secret']);
    expect(await lookupWith(config)).toBe(200);

    const { rows } = await h.db.query<{ sealed: Uint8Array }>('SELECT sealed FROM platform_secrets');
    expect(Buffer.from(rows[0]!.sealed).includes(Buffer.from(h.config.ANNUAIRE_CLIENT_SECRET))).toBe(false);
    expect(JSON.stringify(await listPlatformSecrets(h.db))).not.toContain(h.config.ANNUAIRE_CLIENT_SECRET);
  });
});
