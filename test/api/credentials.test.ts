// A party's portal credential (seed §5) as an integrator stores it: write-only, encrypted at rest, never returned.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialContext } from '../../domain/party/credentials';
import { getCredential } from '../../platform/store/credentials';
import { startHarness, type Harness } from '../support/harness';
import { makeSiren, party } from '../../bin/stack/sample-parties';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

describe('entry credentials', () => {
  it('stores a portal OAuth token encrypted and never returns it', async () => {
    const id = crypto.randomUUID();
    await h.api('PUT', `/silo/v1/entries/${id}`, { data: party(makeSiren()) });
    const token = `eyJ${crypto.randomBytes(48).toString('base64url')}`;
    const refresh = `rt_${crypto.randomBytes(24).toString('hex')}`;
    const put = await h.api('PUT', `/silo/v1/entries/${id}/credentials/chorus-pro`, {
      kind: 'oauth-token',
      access_token: token,
      refresh_token: refresh,
      token_type: 'Bearer',
      expires_at: '2027-01-01T00:00:00Z',
      account: 'supplier-42',
      portal: 'chorus-pro',
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      name: 'chorus-pro',
      kind: 'oauth-token',
      details: { token_type: 'Bearer', account: 'supplier-42', expires_at: '2027-01-01T00:00:00Z' },
    });
    const listed = await h.api('GET', `/silo/v1/entries/${id}/credentials`);
    const entry = await h.api('GET', `/silo/v1/entries/${id}`);
    for (const text of [JSON.stringify(put.body), JSON.stringify(listed.body), JSON.stringify(entry.body)]) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(refresh);
    }
    // At rest: the raw row holds no plaintext, and the service can open it.
    const row = (await getCredential(h.db, id, 'chorus-pro'))!;
    expect(Buffer.from(row.sealed).includes(Buffer.from(token))).toBe(false);
    expect(JSON.stringify(row.details)).not.toContain(token);
    expect(JSON.parse(h.box.open(row.sealed, credentialContext(id, 'chorus-pro')).toString())).toEqual({
      access_token: token,
      refresh_token: refresh,
    });

    // Replaced in place, removed on request.
    expect(
      (await h.api('PUT', `/silo/v1/entries/${id}/credentials/chorus-pro`, { kind: 'api-key', key: 'k-123456' })).body
        .kind,
    ).toBe('api-key');
    expect((await h.api('GET', `/silo/v1/entries/${id}/credentials`)).body.list).toHaveLength(1);
    expect((await h.api('DELETE', `/silo/v1/entries/${id}/credentials/chorus-pro`)).status).toBe(204);
    expect((await h.api('DELETE', `/silo/v1/entries/${id}/credentials/chorus-pro`)).status).toBe(404);
  });

  it('refuses malformed credentials and other workspaces', async () => {
    const id = crypto.randomUUID();
    await h.api('PUT', `/silo/v1/entries/${id}`, { data: party(makeSiren()) });
    const path = `/silo/v1/entries/${id}/credentials/portal`;
    for (const bad of [
      { kind: 'password', value: 'x' },
      { kind: 'oauth-token' },
      { kind: 'oauth-token', access_token: '' },
      { kind: 'api-key', key: 'k', extra: 1 },
      { kind: 'oauth-token', access_token: 't', expires_at: 'tomorrow' },
    ]) {
      expect((await h.api('PUT', path, bad)).status, JSON.stringify(bad)).toBe(400);
    }
    expect(
      (await h.api('PUT', `/silo/v1/entries/${id}/credentials/Bad Name`, { kind: 'api-key', key: 'k' })).status,
    ).toBe(400);
    const other = await h.newKey(['entries:rw']);
    expect((await h.api('PUT', path, { kind: 'api-key', key: 'k' }, other)).status).toBe(404);
    expect((await h.api('GET', `/silo/v1/entries/${id}/credentials`, undefined, other)).status).toBe(404);
  });
});
