// What an integrator expects around the endpoints: keys managed per workspace and refused the moment they are
// revoked, workspaces kept apart (no key 401, wrong scope 403, other workspace 404), health probes. Every route for
// both kinds of caller: authorisation-matrix.test.ts.
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app';
import { log, startHarness, type Harness } from '../support/harness';
import { makeSiren, party } from '../../bin/stack/sample-parties';
import { testSealKey } from '../support/seal-key';
import { SCOPES, type Scope } from '../../platform/store/workspaces';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

describe('API keys (admin/v1 and the scope admin)', () => {
  it('creates a key shown once, lists keys without secrets, and refuses a revoked key at once', async () => {
    const admin = await h.newKey(['admin'], h.workspaceId);
    const created = await h.api('POST', '/admin/v1/keys', { name: 'erp', scopes: ['entries:rw'] }, admin);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'erp', scopes: ['entries:rw'], revoked_at: null });
    expect(created.body.api_key).toMatch(/^pak_/);
    expect(created.body.prefix).toBe(created.body.api_key.slice(0, 8));

    const list = (await h.api('GET', '/admin/v1/keys', undefined, admin)).body.list;
    expect(list.map((k: { id: string }) => k.id)).toContain(created.body.id);
    expect(JSON.stringify(list)).not.toContain(created.body.api_key);
    expect(list.every((k: Record<string, unknown>) => !('api_key' in k) && !('secret_sha256' in k))).toBe(true);

    const key = created.body.api_key;
    expect((await h.api('GET', '/silo/v1/entries', undefined, key)).status).toBe(200);
    expect((await h.api('DELETE', `/admin/v1/keys/${created.body.id}`, undefined, admin)).status).toBe(204);
    const refused = await h.api('GET', '/silo/v1/entries', undefined, key);
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toMatch(/revoked/);
    expect(
      (await h.api('GET', '/admin/v1/keys', undefined, admin)).body.list.find(
        (k: { id: string }) => k.id === created.body.id,
      ).revoked_at,
    ).not.toBeNull();
    // Revoking again is harmless; a key cannot revoke itself.
    expect((await h.api('DELETE', `/admin/v1/keys/${created.body.id}`, undefined, admin)).status).toBe(204);
    const self = (await h.api('GET', '/admin/v1/keys', undefined, admin)).body.list.find(
      (k: { scopes: string[]; revoked_at: string | null }) => k.scopes.includes('admin') && !k.revoked_at,
    );
    const own = await h.api('DELETE', `/admin/v1/keys/${self.id}`, undefined, admin);
    expect([own.status, own.body.code, own.body.detail]).toEqual([
      409,
      'own-key',
      expect.stringMatching(/another admin key/),
    ]);
  });

  it('validates what it is given', async () => {
    const admin = await h.newKey(['admin'], h.workspaceId);
    for (const bad of [
      { name: 'x', scopes: [] },
      { name: 'x', scopes: ['root'] },
      { name: '', scopes: ['admin'] },
      { name: 'x', scopes: ['admin', 'admin'] },
      { name: 'x' },
    ]) {
      const r = await h.api('POST', '/admin/v1/keys', bad, admin);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.detail).toBeTruthy();
    }
    expect((await h.api('DELETE', '/admin/v1/keys/not-a-uuid', undefined, admin)).status).toBe(400);
    const unknown = await h.api('DELETE', `/admin/v1/keys/${crypto.randomUUID()}`, undefined, admin);
    expect([unknown.status, unknown.body.code]).toEqual([404, 'not-found']);
  });
});

describe('workspaces apart', () => {
  it("no key 401, a key without the scope 403, another workspace's key 404", async () => {
    const entryId = crypto.randomUUID();
    expect((await h.api('PUT', `/silo/v1/entries/${entryId}`, { data: party(makeSiren()) })).status).toBe(200);
    const job = await h.api('POST', '/transform/v1/jobs', {
      workflow_id: '3b67bf9e-5044-4707-9df5-2d136892ab6f',
      silo_entry_id: entryId,
    });
    expect(job.status).toBe(202);
    const adminKeyId = (await h.api('GET', '/admin/v1/keys')).body.list[0].id;
    const routes: { method: string; path: string; scope: Scope; body?: unknown }[] = [
      { method: 'GET', path: `/silo/v1/entries/${entryId}`, scope: 'entries:rw' },
      { method: 'GET', path: `/silo/v1/entries/${entryId}/meta/approval-link`, scope: 'entries:rw' },
      { method: 'GET', path: `/transform/v1/jobs/${job.body.id}`, scope: 'jobs:rw' },
      { method: 'GET', path: `/apps/gov-fr/v1/entry/${entryId}/agreement`, scope: 'entries:rw' },
      { method: 'POST', path: `/apps/gov-fr/v1/entry/${entryId}/confirm`, scope: 'entries:rw' },
      { method: 'DELETE', path: `/admin/v1/keys/${adminKeyId}`, scope: 'admin' },
    ];
    const otherWorkspace = await h.newKey([...SCOPES]);
    for (const r of routes) {
      const what = `${r.method} ${r.path}`;
      expect((await h.api(r.method, r.path, r.body, null)).status, what).toBe(401);
      const wrongScope = await h.api(
        r.method,
        r.path,
        r.body,
        await h.newKey(
          SCOPES.filter((s) => s !== r.scope),
          h.workspaceId,
        ),
      );
      expect(wrongScope.status, what).toBe(403);
      expect(wrongScope.body.detail).toContain(r.scope);
      expect((await h.api(r.method, r.path, r.body, otherWorkspace)).status, what).toBe(404);
    }
  });
});

describe('body limits', () => {
  it('keeps small routes small and uploads at 4 MB', async () => {
    const admin = await h.newKey(['admin'], h.workspaceId);
    const big = await h.api('POST', '/admin/v1/keys', { name: 'x'.repeat(20_000), scopes: ['admin'] }, admin);
    expect(big.status).toBe(413);
    expect(big.body.detail).toMatch(/too large/);
    const hugeEntry = await h.api('POST', '/silo/v1/entries', { data: { name: 'x'.repeat(1_100_000) } });
    expect(hugeEntry.status).toBe(413);
    // The upload routes take a 4 MB file (5.6 MB once in base64) and refuse more (gov-fr-entry.test.ts checks the 4 MB).
    const entryId = crypto.randomUUID();
    const upload = await h.api('POST', `/apps/gov-fr/v1/entry/${entryId}/identity`, {
      view: 'front',
      data: 'A'.repeat(5_500_000),
    });
    expect(upload.status).not.toBe(413); // parsed, then refused for what it is (no such entry)
    expect(
      (await h.api('POST', `/apps/gov-fr/v1/entry/${entryId}/identity`, { view: 'front', data: 'A'.repeat(7_000_000) }))
        .status,
    ).toBe(413);
  });
});

describe('health', () => {
  it('is live and ready when the database and Temporal answer', async () => {
    expect((await h.api('GET', '/utils/v1/health/live', undefined, null)).body).toEqual({ status: 'ok' });
    const ready = await h.api('GET', '/utils/v1/health/ready', undefined, null);
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', checks: { database: 'ok', temporal: 'ok' } });
  });

  it('is not ready, and says why, when Temporal cannot be reached', async () => {
    const nowhere = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
    const app = createApp({ db: h.db, log, temporal: nowhere, config: h.config, box: h.box, sealKey: testSealKey() });
    const server: Server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const started = Date.now();
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/utils/v1/health/ready`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { status: string; checks: { database: string; temporal: string } };
      expect(body.status).toBe('unavailable');
      expect(body.checks.database).toBe('ok');
      expect(body.checks.temporal).not.toBe('ok');
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(
        (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/utils/v1/health/live`)).status,
      ).toBe(200);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
