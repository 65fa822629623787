// Idempotency-Key on the authenticated POSTs (issue 21, point 6), over real HTTP: a retry replays the first answer,
// another request under the key is 422, a request still running makes the retry 409; keys are per API key, last
// 24 hours, and a 5xx is not kept. The in-flight claim is also raced directly on each store engine.
// Over 300 lines: the HTTP cases and the store's race on both engines, one harness for them.
import crypto from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app';
import { requestSha256 } from '../../api/idempotency';
import {
  claimIdempotencyKey,
  releaseIdempotencyKey,
  sweepIdempotencyKeys,
} from '../../platform/store/idempotency-keys';
import { createApiKey, createWorkspace } from '../../platform/store/workspaces';
import { replayed, send as sendAs, type Answer } from '../support/keyed-send';
import { eventually, freshDb, log, startHarness, type Harness } from '../support/harness';
import { makeSiren, party } from '../../bin/stack/sample-parties';
import { createEntry, createWorkflow, setState } from '../support/jobs';
import { testSealKey } from '../support/seal-key';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** A request as a client sends it, with an Idempotency-Key unless `key` is null; checked against the contract. */
const send = (
  path: string,
  body: unknown,
  opts: { key?: string | null; apiKey?: string; method?: string; baseUrl?: string } = {},
): Promise<Answer> =>
  sendAs(path, body, { ...opts, apiKey: opts.apiKey ?? h.apiKey, baseUrl: opts.baseUrl ?? h.baseUrl });

const newKey = () => crypto.randomUUID();
/** The store's holder of the Idempotency-Keys an API key sends. */
const holderOf = async (secret: string) => {
  const { rows } = await h.db.query<{ id: string; workspace_id: string }>(
    'SELECT id, workspace_id FROM api_keys WHERE secret_sha256 = $1',
    [crypto.createHash('sha256').update(secret).digest('hex')],
  );
  return { workspaceId: rows[0]!.workspace_id, apiKeyId: rows[0]!.id };
};
const entryRequest = () => ({ data: party(makeSiren()), folder: `idem-${crypto.randomUUID()}` });
const entriesIn = async (folder: string) =>
  (await send(`/silo/v1/entries?folder=${folder}`, undefined, { method: 'GET', key: null })).body.list;

const expectProblem = (a: Answer, status: number, code: string) => {
  expect(a.status, a.text).toBe(status);
  expect(a.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(a.body.code).toBe(code);
};

describe('a retry with the same key and request', () => {
  it('replays the first answer: one entry, the same status and body, marked Idempotent-Replayed', async () => {
    const req = entryRequest();
    const key = newKey();
    const first = await send('/silo/v1/entries', req, { key });
    expect(first.status, first.text).toBe(200);
    expect(replayed(first)).toBeNull();
    const retry = await send('/silo/v1/entries', req, { key });
    expect(retry.status).toBe(200);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(replayed(retry)).toBe('true');
    // The same JSON written otherwise (key order, spacing) is the same request.
    const reordered = `{ "folder": ${JSON.stringify(req.folder)},\n  "data": ${JSON.stringify(req.data)} }`;
    expect(replayed(await send('/silo/v1/entries', reordered, { key }))).toBe('true');
    expect((await entriesIn(req.folder)).map((e: { id: string }) => e.id)).toEqual([first.body.id]);
  });

  it('(without a key, each POST creates its own entry)', async () => {
    const req = entryRequest();
    await send('/silo/v1/entries', req, { key: null });
    await send('/silo/v1/entries', req, { key: null });
    expect(await entriesIn(req.folder)).toHaveLength(2);
  });

  it('replays a 4xx too, but not a 5xx: after a 5xx the retry runs again', async () => {
    const key = newKey();
    const invalid = await send('/silo/v1/entries', { data: {} }, { key });
    expect(invalid.status).toBe(400);
    const again = await send('/silo/v1/entries', { data: {} }, { key });
    expect([again.status, again.text, replayed(again)]).toEqual([400, invalid.text, 'true']);

    // The store fails this one insert (a 500), then recovers.
    const req = { ...entryRequest(), folder: `fail-${crypto.randomUUID()}` };
    await h.db.query(
      `CREATE FUNCTION idem_fail() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'store down'; END $$`,
    );
    await h.db.query(
      `CREATE TRIGGER idem_fail BEFORE INSERT ON entries FOR EACH ROW WHEN (NEW.folder LIKE 'fail-%') EXECUTE FUNCTION idem_fail()`,
    );
    const key5xx = newKey();
    try {
      expect((await send('/silo/v1/entries', req, { key: key5xx })).status).toBe(500);
    } finally {
      await h.db.query('DROP TRIGGER idem_fail ON entries; DROP FUNCTION idem_fail()');
    }
    const retry = await send('/silo/v1/entries', req, { key: key5xx });
    expect([retry.status, replayed(retry)]).toEqual([200, null]);
    expect(await entriesIn(req.folder)).toHaveLength(1);
  });

  it('replays a secret shown once (a new API key), which is kept sealed meanwhile', async () => {
    const key = newKey();
    const first = await send('/admin/v1/keys', { name: 'ci', scopes: ['entries:rw'] }, { key });
    expect(first.status, first.text).toBe(201);
    const retry = await send('/admin/v1/keys', { name: 'ci', scopes: ['entries:rw'] }, { key });
    expect([retry.status, retry.body.api_key, replayed(retry)]).toEqual([201, first.body.api_key, 'true']);
    const { rows } = await h.db.query<{ body_sealed: Uint8Array }>(
      'SELECT body_sealed FROM idempotency_keys WHERE key = $1',
      [key],
    );
    expect(Buffer.from(rows[0]!.body_sealed).includes(first.body.api_key)).toBe(false);
  });

  it('works on the entry API, whose routes parse their own bodies (uploads included)', async () => {
    const entryId = await createEntry(h);
    const key = newKey();
    const upload = { view: 'front', data: Buffer.from('not an image').toString('base64') };
    const first = await send(`/apps/gov-fr/v1/entry/${entryId}/identity`, upload, { key });
    expect(first.status).toBeGreaterThanOrEqual(400); // no registration job has issued the mandate yet
    const retry = await send(`/apps/gov-fr/v1/entry/${entryId}/identity`, upload, { key });
    expect([retry.status, retry.text, replayed(retry)]).toEqual([first.status, first.text, 'true']);
    const other = await send(`/apps/gov-fr/v1/entry/${entryId}/identity`, { ...upload, view: 'back' }, { key });
    expectProblem(other, 422, 'idempotency-key-reused');
    // A route without a body, keyed too.
    const confirmKey = newKey();
    const confirm = await send(`/apps/gov-fr/v1/entry/${entryId}/confirm`, undefined, { key: confirmKey });
    expect(replayed(await send(`/apps/gov-fr/v1/entry/${entryId}/confirm`, undefined, { key: confirmKey }))).toBe(
      'true',
    );
    expect(confirm.status).toBeGreaterThanOrEqual(400);
    // An operator's requests keep no answers: the decision is claimed once, its repetition answered on its own.
    const decisionKey = newKey();
    const asOperator = { key: decisionKey, apiKey: h.operator };
    const decided = await send(`/apps/gov-fr/v1/entry/${entryId}/decision`, { approved: true }, asOperator);
    const again = await send(`/apps/gov-fr/v1/entry/${entryId}/decision`, { approved: true }, asOperator);
    expect([decided.status, replayed(decided), again.status, replayed(again)]).toEqual([409, null, 409, null]);
  });
});

describe('the key', () => {
  it('on another request (body or path) is refused with 422, and nothing runs', async () => {
    const req = entryRequest();
    const key = newKey();
    expect((await send('/silo/v1/entries', req, { key })).status).toBe(200);
    expectProblem(
      await send('/silo/v1/entries', { ...req, data: party(makeSiren()) }, { key }),
      422,
      'idempotency-key-reused',
    );
    const entryId = await createEntry(h);
    expectProblem(
      await send('/transform/v1/jobs', { workflow_id: crypto.randomUUID(), silo_entry_id: entryId }, { key }),
      422,
      'idempotency-key-reused',
    );
    expect(await entriesIn(req.folder)).toHaveLength(1);
  });

  it("of another workspace never replays this one's answer", async () => {
    const req = entryRequest();
    const key = newKey();
    const ours = await send('/silo/v1/entries', req, { key });
    const otherWorkspace = await h.newKey(['entries:rw']);
    const theirs = await send('/silo/v1/entries', req, { key, apiKey: otherWorkspace });
    expect([theirs.status, replayed(theirs)]).toEqual([200, null]);
    expect(theirs.body.id).not.toBe(ours.body.id);
    expect(replayed(await send('/silo/v1/entries', req, { key, apiKey: otherWorkspace }))).toBe('true');
  });

  it('is forgotten after 24 hours: the request then runs anew, and old keys are swept', async () => {
    const req = entryRequest();
    const key = newKey();
    const first = await send('/silo/v1/entries', req, { key });
    await h.db.query(
      `UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE workspace_id = $1 AND key = $2`,
      [h.workspaceId, key],
    );
    const anew = await send('/silo/v1/entries', req, { key });
    expect([anew.status, replayed(anew)]).toEqual([200, null]);
    expect(anew.body.id).not.toBe(first.body.id);
    const retry = await send('/silo/v1/entries', req, { key });
    expect([retry.body.id, replayed(retry)]).toEqual([anew.body.id, 'true']);

    await h.db.query(
      `UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE workspace_id = $1 AND key = $2`,
      [h.workspaceId, key],
    );
    expect(await sweepIdempotencyKeys(h.db)).toBeGreaterThanOrEqual(1);
    expect((await h.db.query('SELECT 1 FROM idempotency_keys WHERE key = $1', [key])).rows).toEqual([]);
  });

  it('is 1 to 255 printable ASCII characters, else 400', async () => {
    for (const bad of ['', 'x'.repeat(256), 'tab\there']) {
      expectProblem(await send('/silo/v1/entries', entryRequest(), { key: bad }), 400, 'idempotency-key-invalid');
    }
    expect((await send('/silo/v1/entries', entryRequest(), { key: `~ ${'x'.repeat(253)}` })).status).toBe(200);
  });

  it('is ignored on other methods (a PUT is idempotent by its id)', async () => {
    const key = newKey();
    for (let i = 0; i < 2; i++) {
      const put = await send(
        `/silo/v1/entries/${crypto.randomUUID()}`,
        { data: party(makeSiren()) },
        { key, method: 'PUT' },
      );
      expect([put.status, replayed(put)]).toEqual([200, null]);
    }
  });
});

describe('while the first request with a key runs', () => {
  it('a second one is refused with 409, then runs once the key is free', async () => {
    const req = entryRequest();
    const key = newKey();
    // Held as another API replica handling this very request would hold it.
    const holder = await holderOf(h.apiKey);
    const held = await claimIdempotencyKey(h.db, holder, key, requestSha256('POST', '/silo/v1/entries', req));
    if (held.outcome !== 'claimed') throw new Error(held.outcome);
    expectProblem(await send('/silo/v1/entries', req, { key }), 409, 'idempotency-key-in-flight');
    await releaseIdempotencyKey(h.db, holder, key, held.claim);
    expect((await send('/silo/v1/entries', req, { key })).status).toBe(200);
  });

  it('409 for a retry to another replica while a slow job creation (?wait) runs; the answer is replayed after', async () => {
    // A second API on the same store, whose Temporal is unreachable: its job stays QUEUED, and ?wait=2 holds the answer 2 s more.
    const dead = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1', connectTimeout: 500 }) });
    const app = createApp({ db: h.db, log, temporal: dead, config: h.config, box: h.box, sealKey: testSealKey() });
    const server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const slowApi = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const job = {
        workflow_id: await createWorkflow(h, [setState('processing')]),
        silo_entry_id: await createEntry(h),
      };
      const key = newKey();
      const started = Date.now();
      const first = send('/transform/v1/jobs?wait=2', job, { key, baseUrl: slowApi });
      await eventually(
        async () => (await h.db.query('SELECT 1 FROM idempotency_keys WHERE key = $1', [key])).rows.length === 1,
        5_000,
        'the key claimed',
      );
      expectProblem(await send('/transform/v1/jobs?wait=2', job, { key }), 409, 'idempotency-key-in-flight');
      const answer = await first;
      expect(answer.status, answer.text).toBe(202);
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
      const retry = await send('/transform/v1/jobs?wait=2', job, { key });
      expect([retry.status, retry.body.id, replayed(retry)]).toEqual([202, answer.body.id, 'true']);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('of identical requests sent at once, one runs: the others get its answer or 409', async () => {
    const req = entryRequest();
    const key = newKey();
    const answers = await Promise.all(Array.from({ length: 6 }, () => send('/silo/v1/entries', req, { key })));
    const ran = answers.filter((a) => a.status === 200 && !replayed(a));
    expect(ran).toHaveLength(1);
    for (const a of answers) {
      if (a.status === 409) expect(a.body.code).toBe('idempotency-key-in-flight');
      else expect([a.status, a.text]).toEqual([200, ran[0]!.text]);
    }
    expect(await entriesIn(req.folder)).toHaveLength(1);
  });
});

describe('the OpenAPI document', () => {
  it("declares the Idempotency-Key header on every POST an API key makes, and only there (operators' keep no answers; a streamed file is identified by its own key)", async () => {
    const doc = (await send('/openapi.json', undefined, { method: 'GET', key: null })).body;
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        const declared = (op.parameters ?? []).some(
          (p: { name: string; in: string }) => p.in === 'header' && p.name === 'Idempotency-Key',
        );
        const streamedFile = op.requestBody && !op.requestBody.content['application/json'];
        expect(declared, `${method} ${path}`).toBe(
          method === 'post' && op['x-required-scope'] !== undefined && !streamedFile,
        );
      }
    }
  });
});

const engines = ['pglite', ...(process.env.TEST_DATABASE_URL ? ['postgres' as const] : [])] as const;

describe.each(engines)('claiming a key in the store (%s)', (engine) => {
  it('of many concurrent claims on one key, exactly one wins; the others see it in flight', async () => {
    const { db, drop } = await freshDb(engine);
    try {
      const ws = await createWorkspace(db, 'claims');
      const holder = { workspaceId: ws.id, apiKeyId: (await createApiKey(db, ws.id, { name: 'claims' })).id };
      const outcomes = await Promise.all(
        Array.from({ length: 12 }, () => claimIdempotencyKey(db, holder, 'k', 'same-request')),
      );
      expect(outcomes.filter((o) => o.outcome === 'claimed')).toHaveLength(1);
      expect(outcomes.filter((o) => o.outcome === 'in-flight')).toHaveLength(11);
      expect((await claimIdempotencyKey(db, holder, 'k', 'another-request')).outcome).toBe('reused');
      // An unanswered claim older than the abandonment delay (its process died) is taken over.
      await db.query(`UPDATE idempotency_keys SET created_at = now() - interval '6 minutes'`);
      expect((await claimIdempotencyKey(db, holder, 'k', 'same-request')).outcome).toBe('claimed');
    } finally {
      await drop();
    }
  });
});
