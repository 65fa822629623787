// silo/v1 over real HTTP: entries, meta, auth and errors as a client sees them.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness';
import { frenchVatKey } from '../../domain/party/french-ids';
import { makeSiren, party } from '../../bin/stack/sample-parties';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const expectProblem = (r: { status: number; body: any; headers: Headers }, status: number, detail: RegExp) => {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toMatchObject({ status, title: expect.any(String), type: expect.any(String) });
  expect(r.body.detail).toMatch(detail);
};

describe('utils/v1', () => {
  it('answers ping without a key', async () => {
    const r = await h.api('GET', '/utils/v1/ping', undefined, null);
    expect(r).toMatchObject({ status: 200, body: { ping: 'pong' } });
  });
});

describe('auth', () => {
  it('401 without a key or with an unknown one', async () => {
    expectProblem(await h.api('GET', '/silo/v1/entries', undefined, null), 401, /missing API key/);
    expectProblem(await h.api('GET', '/silo/v1/entries', undefined, 'pak_nope'), 401, /unknown or revoked/);
  });

  it('403 when the key lacks the scope', async () => {
    const jobsOnly = await h.newKey(['jobs:rw'], h.workspaceId);
    expectProblem(await h.api('GET', '/silo/v1/entries', undefined, jobsOnly), 403, /entries:rw/);
  });

  it("another workspace's entry is a 404", async () => {
    const id = crypto.randomUUID();
    expect((await h.api('PUT', `/silo/v1/entries/${id}`, { data: party() })).status).toBe(200);
    const otherKey = await h.newKey();
    expectProblem(await h.api('GET', `/silo/v1/entries/${id}`, undefined, otherKey), 404, /not found/);
    expect((await h.api('GET', `/silo/v1/entries/${id}`)).status).toBe(200);
  });
});

describe('entries', () => {
  it('creates with POST and with PUT, and returns the entry with state and meta', async () => {
    const created = await h.api('POST', '/silo/v1/entries', { data: party('552032534'), key: 'danone' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      id: expect.any(String),
      key: 'danone',
      doc_schema: 'org/party',
      meta: [],
      faults: [],
    });
    expect(created.body.data.$schema).toBe('https://gobl.org/draft-0/org/party');
    const got = await h.api('GET', `/silo/v1/entries/${created.body.id}`);
    expect(got.body).toEqual(created.body);
    expect((await h.api('GET', '/silo/v1/entries/key/danone')).body.id).toBe(created.body.id);
  });

  it('409 on a reused id or key', async () => {
    const id = crypto.randomUUID();
    expect((await h.api('PUT', `/silo/v1/entries/${id}`, { data: party(), key: `k-${id}` })).status).toBe(200);
    expectProblem(
      await h.api('PUT', `/silo/v1/entries/${id}`, { data: party() }),
      409,
      new RegExp(`id ${id} already exists`),
    );
    expectProblem(
      await h.api('POST', '/silo/v1/entries', { data: party(), key: `k-${id}` }),
      409,
      /key "k-.*" already exists/,
    );
  });

  it('rejects invalid French identifiers with the reason', async () => {
    const siren = makeSiren();
    const wrongKey = String((Number(frenchVatKey(siren)) + 1) % 97).padStart(2, '0');
    const badKey = party(siren, { tax_id: { country: 'FR', code: `${wrongKey}${siren}` } });
    expectProblem(
      await h.api('POST', '/silo/v1/entries', { data: badKey }),
      400,
      new RegExp(`tax_id\\.code: invalid French VAT code: key ${wrongKey} does not match`),
    );

    const otherSiren = party(siren, { identities: [{ type: 'SIREN', code: '552032534' }] });
    const r = await h.api('POST', '/silo/v1/entries', { data: otherSiren });
    expectProblem(r, 400, /differs from the SIREN in the VAT code/);
    expect(r.body.errors[0]).toEqual({
      path: 'body.data.identities.0.code',
      message: expect.stringContaining('552032534'),
    });

    expectProblem(await h.api('POST', '/silo/v1/entries', { data: party('123456789') }), 400, /not a valid SIREN/);
  });

  it('400 for malformed JSON, unknown fields, wrong types and wrong content type', async () => {
    expectProblem(await h.api('POST', '/silo/v1/entries', '{"data": {'), 400, /malformed JSON/);
    expectProblem(
      await h.api('POST', '/silo/v1/entries', { data: party(), colour: 'blue' }),
      400,
      /unknown field\(s\): colour/,
    );
    expectProblem(
      await h.api('POST', '/silo/v1/entries', { data: { ...party(), nickname: 'x' } }),
      400,
      /unknown field\(s\): nickname/,
    );
    expectProblem(await h.api('POST', '/silo/v1/entries', { data: 'party' }), 400, /body\.data/);
    expectProblem(await h.api('POST', '/silo/v1/entries', { data: { ...party(), name: 7 } }), 400, /body\.data\.name/);
    expectProblem(
      await h.api('POST', '/silo/v1/entries', {
        data: { ...party(), $schema: 'https://gobl.org/draft-0/bill/invoice' },
      }),
      400,
      /unsupported document schema/,
    );
    const res = await fetch(`${h.baseUrl}/silo/v1/entries`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(res.status).toBe(415);
  });

  it('400 (not 500) for NUL characters, which PostgreSQL cannot store, and nothing is stored', async () => {
    const fresh = await h.newKey();
    expectProblem(
      await h.api('POST', '/silo/v1/entries', { data: { ...party(), name: 'Dan\u0000one' } }, fresh),
      400,
      /body\.data\.name: the NUL character/,
    );
    expectProblem(
      await h.api('POST', '/silo/v1/entries', { data: party(), key: 'a\u0000b' }, fresh),
      400,
      /body\.key: the NUL character/,
    );
    expectProblem(
      await h.api('POST', '/silo/v1/entries', '{"data":{"name":"\\ud800"}}', fresh),
      400,
      /body\.data\.name: .*unpaired surrogates/,
    );
    expect((await h.api('GET', '/silo/v1/entries', undefined, fresh)).body.list).toEqual([]);
  });

  it('400 for control or invisible formatting characters in what reaches the mandate, the directory and Peppol', async () => {
    const fresh = await h.newKey();
    const p = party();
    for (const [data, path] of [
      [{ ...p, name: 'Evil\u0007Bell SAS' }, 'body.data.name'],
      [{ ...p, name: 'Acme \u202eSAS' }, 'body.data.name'], // a right-to-left override shows another name
      [{ ...p, addresses: [{ ...p.addresses[0], street: 'rue\u0001X' }] }, 'body.data.addresses.0.street'],
    ] as const) {
      const res = await h.api('POST', '/silo/v1/entries', { data }, fresh);
      expectProblem(
        res,
        400,
        new RegExp(`${path.replace(/\./g, '\\.')}: no control or invisible formatting characters`),
      );
    }
    expect((await h.api('GET', '/silo/v1/entries', undefined, fresh)).body.list).toEqual([]);
  });

  it('404 for unknown ids, 400 for ids that are not UUIDs, 404 for unknown routes', async () => {
    expectProblem(await h.api('GET', `/silo/v1/entries/${crypto.randomUUID()}`), 404, /not found/);
    expectProblem(await h.api('GET', '/silo/v1/entries/..%2F..%2Fetc%2Fpasswd'), 400, /must be a UUID/);
    expectProblem(await h.api('GET', '/silo/v2/entries'), 404, /no route/);
    expectProblem(await h.api('GET', '/silo/v1/entries/%E0%A4%A'), 400, /decode/);
  });

  it('pages with a cursor and refuses a limit above 100', async () => {
    const fresh = await h.newKey();
    for (let i = 0; i < 5; i++) await h.api('POST', '/silo/v1/entries', { data: party() }, fresh);
    const p1 = await h.api('GET', '/silo/v1/entries?limit=2', undefined, fresh);
    expect(p1.body.list).toHaveLength(2);
    const p2 = await h.api('GET', `/silo/v1/entries?limit=2&cursor=${p1.body.next_cursor}`, undefined, fresh);
    const p3 = await h.api('GET', `/silo/v1/entries?limit=2&cursor=${p2.body.next_cursor}`, undefined, fresh);
    expect(p3.body.list).toHaveLength(1);
    expect(p3.body.next_cursor).toBeUndefined();
    const ids = [...p1.body.list, ...p2.body.list, ...p3.body.list].map((e: any) => e.id);
    expect(new Set(ids).size).toBe(5);
    expectProblem(await h.api('GET', '/silo/v1/entries?limit=101'), 400, /limit: at most 100/);
    expectProblem(await h.api('GET', '/silo/v1/entries?cursor=garbage'), 400, /cursor/);
    expectProblem(await h.api('GET', '/silo/v1/entries?sort=name'), 400, /unknown field\(s\): sort/);
  });
});

describe('meta', () => {
  it('puts, gets, lists on the entry and deletes a caller meta key', async () => {
    const { body: e } = await h.api('POST', '/silo/v1/entries', { data: party() });
    const put = await h.api('PUT', `/silo/v1/entries/${e.id}/meta/fr-former-matricule`, {
      value: { matricule: '0042' },
      indexed: true,
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      id: `${e.id}:api:fr-former-matricule`,
      src: 'api',
      key: 'fr-former-matricule',
      value: { matricule: '0042' },
      indexed: true,
      shared: false,
    });
    expect((await h.api('GET', `/silo/v1/entries/${e.id}/meta/fr-former-matricule`)).body).toEqual(put.body);
    expect((await h.api('GET', `/silo/v1/entries/${e.id}`)).body.meta).toEqual([put.body]);
    expect((await h.api('DELETE', `/silo/v1/entries/${e.id}/meta/fr-former-matricule`)).status).toBe(204);
    expectProblem(await h.api('GET', `/silo/v1/entries/${e.id}/meta/fr-former-matricule`), 404, /not found/);
  });

  it("finds a meta row by its key and ref, as the entry shows it, only in the caller's workspace", async () => {
    const { body: e } = await h.api('POST', '/silo/v1/entries', { data: party() });
    const ref = `crm-${crypto.randomUUID()}`;
    const put = await h.api('PUT', `/silo/v1/entries/${e.id}/meta/crm-id`, { ref, value: 'C-1' });
    const row = (await h.api('GET', `/silo/v1/entries/${e.id}`)).body.meta[0];
    expect(row).toEqual(put.body);
    const found = await h.api('GET', `/silo/v1/entries/meta/crm-id/${ref}`);
    expect(found.status).toBe(200);
    expect(found.body).toEqual(row);
    expect(found.body.entry_id).toBe(e.id);
    expect((await h.api('GET', `/silo/v1/entries/meta/crm-id/${ref}?owned=true`)).body).toEqual(row);
    expectProblem(
      await h.api('GET', `/silo/v1/entries/meta/other-key/${ref}`),
      404,
      /meta "other-key" with ref .* not found/,
    );
    expectProblem(
      await h.api('GET', `/silo/v1/entries/meta/crm-id/${ref}`, undefined, await h.newKey()),
      404,
      /not found/,
    );
    expectProblem(await h.api('GET', `/silo/v1/entries/meta/crm-id/${ref}?owned=maybe`), 400, /owned/);
    expectProblem(await h.api('GET', `/silo/v1/entries/meta/Bad%20Key/${ref}`), 400, /path\.key/);
  });

  it('refuses to let a caller forge the service-managed approval link, and bad meta', async () => {
    const { body: e } = await h.api('POST', '/silo/v1/entries', { data: party() });
    expectProblem(
      await h.api('PUT', `/silo/v1/entries/${e.id}/meta/approval-link`, { link_url: 'https://evil.example/x' }),
      409,
      /managed by the service/,
    );
    expectProblem(await h.api('PUT', `/silo/v1/entries/${e.id}/meta/Bad Key`, {}), 400, /path\.key/);
    expectProblem(await h.api('PUT', `/silo/v1/entries/${e.id}/meta/k`, { link_url: 'not a url' }), 400, /link_url/);
    expectProblem(await h.api('PUT', `/silo/v1/entries/${crypto.randomUUID()}/meta/k`, {}), 404, /not found/);
  });
});

describe('errors a newcomer reads', () => {
  it('a field left out is "required", not a type received', async () => {
    const { tax_id: _, ...noVat } = party();
    const r = await h.api('POST', '/silo/v1/entries', { data: noVat });
    expect(r.status).toBe(400);
    expect(r.body.errors).toContainEqual({ path: 'body.data.tax_id', message: 'required (object)' });
  });
});
