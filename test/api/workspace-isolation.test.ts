// Workspace isolation as a hostile integrator tries it: two workspaces on one service, the second probing the first's
// refs and ids. Nothing may tell it whether a ref or an id is used elsewhere, and nothing of the first may move.
import crypto from 'node:crypto';
import path from 'node:path';
import fs from 'node:fs';
import { runner } from 'node-pg-migrate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryByApprovalRef, RESERVED_IDS } from '../../platform/store/entries';
import { putMeta } from '../../platform/store/entry-meta';
import { openDb, type Db } from '../../platform/store/db';
import { migrate } from '../../platform/store/migrate';
import { SCOPES, createWorkspace } from '../../platform/store/workspaces';
import { REGISTRATION_WORKFLOW_ID } from '../../domain/jobs/builtins';
import { startHarness, type Harness } from '../support/harness';
import { party } from '../../bin/stack/sample-parties';
import { b64, png } from '../../bin/stack/sample-images';
import { jobWhen, setState } from '../support/jobs';
import { entryApi, newParty } from '../support/registration';

let h: Harness;
let other: string; // a key with every scope in a second workspace
let otherWorkspace: string;

// Workspace A's things (the harness's own key), which B probes.
let entry: string;
let entryKey: string;
let job: string;
let jobKey: string;
let approvalRef: string;
let workflow: string;
let subscription: string;
let apiKeyId: string;
let ownEntryOfB: string;

beforeAll(async () => {
  h = await startHarness();
  otherWorkspace = (await createWorkspace(h.db, 'other')).id;
  other = await h.newKey([...SCOPES], otherWorkspace);

  entryKey = `crm-${crypto.randomUUID()}`;
  entry = crypto.randomUUID();
  expect((await h.api('PUT', `/silo/v1/entries/${entry}`, { data: party(), key: entryKey })).status).toBe(200);
  expect((await h.api('PUT', `/silo/v1/entries/${entry}/meta/note`, { value: 'a', ref: 'crm-note-1' })).status).toBe(
    200,
  );
  expect(
    (await h.api('PUT', `/silo/v1/entries/${entry}/credentials/portal`, { kind: 'api-key', key: 'k-123456' })).status,
  ).toBe(200);
  jobKey = `reg-${crypto.randomUUID()}`;
  const started = await h.api('POST', '/transform/v1/jobs', {
    workflow_id: REGISTRATION_WORKFLOW_ID,
    silo_entry_id: entry,
    key: jobKey,
  });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  job = started.body.id;
  await jobWhen(h, job, ['WAIT']);
  approvalRef = (await h.api('GET', `/silo/v1/entries/${entry}/meta/approval-link`)).body.ref;
  expect(approvalRef).toMatch(/^[A-Za-z0-9_-]{43}$/);

  workflow = crypto.randomUUID();
  expect(
    (
      await h.api('PUT', `/transform/v1/workflows/${workflow}`, {
        name: 'Mine',
        schema: 'org/party',
        steps: [setState('processing')],
      })
    ).status,
  ).toBe(200);
  const sub = await h.api('POST', '/events/v1/subscriptions', {
    url: 'http://127.0.0.1:9/hook',
    kinds: ['job.completed'],
  });
  expect(sub.status, JSON.stringify(sub.body)).toBe(201);
  subscription = sub.body.id;
  apiKeyId = (await h.api('POST', '/admin/v1/keys', { name: 'spare', scopes: ['entries:rw'] })).body.id;
  ownEntryOfB = await partyOfB();
}, 120_000);
afterAll(() => h?.close());

/** A new entry in workspace B. */
async function partyOfB(): Promise<string> {
  const r = await h.api('POST', '/silo/v1/entries', { data: party() }, other);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.id;
}

type Answer = Awaited<ReturnType<Harness['api']>>;
/** What a client can read from an answer, with the probed id (or key) replaced: that part differs by design. */
const seen = (r: Answer, probe: string) => ({
  status: r.status,
  type: r.headers.get('content-type'),
  body: JSON.parse(JSON.stringify(r.body ?? null).replaceAll(probe, '<probe>')),
});

describe('meta refs set by callers are unique per workspace', () => {
  it('two workspaces use the same ref; a second use in one workspace is refused', async () => {
    const mine = await h.api(
      'PUT',
      `/silo/v1/entries/${ownEntryOfB}/meta/note`,
      { value: 'b', ref: 'crm-note-1' },
      other,
    );
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    expect(mine.body).toMatchObject({ entry_id: ownEntryOfB, ref: 'crm-note-1', value: 'b' });
    // A's row is untouched.
    expect((await h.api('GET', `/silo/v1/entries/${entry}/meta/note`)).body).toMatchObject({
      ref: 'crm-note-1',
      value: 'a',
    });

    const second = await newParty(h);
    const again = await h.api('PUT', `/silo/v1/entries/${second}/meta/note`, { ref: 'crm-note-1' });
    expect(again.status).toBe(409);
    expect(again.body.detail).toBe('meta ref "crm-note-1" is already used in this workspace');
  });

  it('a workspace cannot tell a ref another uses from a free one, nor take it from it', async () => {
    const ofA = await newParty(h);
    expect((await h.api('PUT', `/silo/v1/entries/${ofA}/meta/crm`, { ref: 'crm-a-only' })).status).toBe(200);
    const fresh = await partyOfB();
    const free = `free-${crypto.randomUUID()}`;
    const usedElsewhere = await h.api('PUT', `/silo/v1/entries/${fresh}/meta/crm`, { ref: 'crm-a-only' }, other);
    const unused = await h.api('PUT', `/silo/v1/entries/${fresh}/meta/crm2`, { ref: free }, other);
    expect(usedElsewhere.status, JSON.stringify(usedElsewhere.body)).toBe(200);
    expect(unused.status, JSON.stringify(unused.body)).toBe(200);
    expect(seen(usedElsewhere, 'crm-a-only').body).toMatchObject({ key: 'crm', ref: '<probe>' });
    // A keeps its ref, and may still use B's refs.
    expect((await h.api('GET', `/silo/v1/entries/${ofA}/meta/crm`)).body.ref).toBe('crm-a-only');
    expect((await h.api('PUT', `/silo/v1/entries/${ofA}/meta/crm2`, { ref: free })).status).toBe(200);
  });

  it("the service's approval-link refs stay unique across workspaces: the wizard finds its entry by ref alone", async () => {
    // The store refuses a second approval link with the same ref, in any workspace; no caller can write one anyway.
    await expect(
      putMeta(h.db, ownEntryOfB, 'approval-link', { src: 'gov-fr', ref: approvalRef }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(
      (
        await h.api(
          'PUT',
          `/silo/v1/entries/${ownEntryOfB}/meta/approval-link`,
          { src: 'gov-fr', ref: approvalRef },
          other,
        )
      ).status,
    ).toBe(409);
    // B may use the text of A's wizard ref as a ref of its own: it is not a wizard link, and A's link still opens A's.
    const put = await h.api(
      'PUT',
      `/silo/v1/entries/${ownEntryOfB}/meta/look-alike`,
      { src: 'gov-fr', ref: approvalRef, link_url: 'https://evil.example/x' },
      other,
    );
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(await entryByApprovalRef(h.db, approvalRef)).toEqual({
      workspaceId: h.workspaceId,
      entryId: entry,
      cancelled: false,
    });
    const state = await fetch(`${h.baseUrl}/reg/${approvalRef}/api/state`);
    expect(state.status).toBe(200);
    expect(((await state.json()) as { company: { name: string } }).company.name).toBe('Boulangerie Exemple SAS');
  });
});

describe("another workspace's ids answer exactly like unknown ones", () => {
  const unknown = () => crypto.randomUUID();
  /** B's requests naming one of A's ids: each must be answered as if the id were a random unused one. */
  const probes = (): {
    route: string;
    taken: string;
    path: (id: string) => string;
    body?: (id: string) => unknown;
  }[] => [
    { route: 'GET entry', taken: entry, path: (id) => `/silo/v1/entries/${id}` },
    { route: 'GET meta', taken: entry, path: (id) => `/silo/v1/entries/${id}/meta/note` },
    {
      route: 'PUT meta',
      taken: entry,
      path: (id) => `/silo/v1/entries/${id}/meta/note`,
      body: () => ({ value: 'x', ref: 'crm-note-1' }),
    },
    { route: 'DELETE meta', taken: entry, path: (id) => `/silo/v1/entries/${id}/meta/note` },
    { route: 'GET credentials', taken: entry, path: (id) => `/silo/v1/entries/${id}/credentials` },
    {
      route: 'PUT credential',
      taken: entry,
      path: (id) => `/silo/v1/entries/${id}/credentials/portal`,
      body: () => ({ kind: 'api-key', key: 'stolen' }),
    },
    { route: 'DELETE credential', taken: entry, path: (id) => `/silo/v1/entries/${id}/credentials/portal` },
    { route: 'GET agreement', taken: entry, path: (id) => `${entryApi(id)}/agreement` },
    {
      route: 'POST identity',
      taken: entry,
      path: (id) => `${entryApi(id)}/identity`,
      body: () => ({ view: 'front', data: b64(png()) }),
    },
    { route: 'POST sign', taken: entry, path: (id) => `${entryApi(id)}/sign` },
    {
      route: 'POST agreement',
      taken: entry,
      path: (id) => `${entryApi(id)}/agreement`,
      body: () => ({ data: b64(Buffer.from('%PDF-1.7\n%%EOF')) }),
    },
    { route: 'POST confirm', taken: entry, path: (id) => `${entryApi(id)}/confirm` },
    { route: 'DELETE approval-link', taken: entry, path: (id) => `${entryApi(id)}/approval-link` },
    { route: 'POST approval-link', taken: entry, path: (id) => `${entryApi(id)}/approval-link` },
    // The decision and the identity images are the platform's operators' (any key: 403, authorisation-matrix.test.ts).
    { route: 'GET job', taken: job, path: (id) => `/transform/v1/jobs/${id}` },
    {
      route: 'POST job on the entry',
      taken: entry,
      path: () => '/transform/v1/jobs',
      body: (id) => ({ workflow_id: REGISTRATION_WORKFLOW_ID, silo_entry_id: id }),
    },
    {
      route: 'POST job with the workflow',
      taken: workflow,
      path: () => '/transform/v1/jobs',
      body: (id) => ({ workflow_id: id, silo_entry_id: ownEntryOfB }),
    },
    { route: 'GET workflow', taken: workflow, path: (id) => `/transform/v1/workflows/${id}` },
    { route: 'GET subscription', taken: subscription, path: (id) => `/events/v1/subscriptions/${id}` },
    { route: 'GET deliveries', taken: subscription, path: (id) => `/events/v1/subscriptions/${id}/deliveries` },
    { route: 'DELETE subscription', taken: subscription, path: (id) => `/events/v1/subscriptions/${id}` },
    { route: 'DELETE key', taken: apiKeyId, path: (id) => `/admin/v1/keys/${id}` },
    { route: 'GET entry by key', taken: entryKey, path: (key) => `/silo/v1/entries/key/${key}` },
    { route: 'GET job by key', taken: jobKey, path: (key) => `/transform/v1/jobs/key/${key}` },
  ];

  it('on every id-taking route: the same status, type and body', async () => {
    for (const p of probes()) {
      const free = p.taken === entryKey || p.taken === jobKey ? `crm-${unknown()}` : unknown();
      const method = p.route.split(' ')[0]!;
      const withTaken = await h.api(method, p.path(p.taken), p.body?.(p.taken), other);
      const withFree = await h.api(method, p.path(free), p.body?.(free), other);
      expect(withTaken.status, p.route).toBe(404);
      expect(seen(withTaken, p.taken), p.route).toEqual(seen(withFree, free));
    }
  });

  it('nothing of A moved: its entry, meta, credential, job, link, workflow, subscription and key are as they were', async () => {
    expect((await h.api('GET', `/silo/v1/entries/${entry}/meta/note`)).body).toMatchObject({ value: 'a' });
    expect((await h.api('GET', `/silo/v1/entries/${entry}/credentials`)).body.list).toHaveLength(1);
    expect((await h.api('GET', `/transform/v1/jobs/${job}`)).body.status).toBe('WAIT');
    expect((await h.api('GET', `/silo/v1/entries/${entry}/meta/approval-link`)).body.ref).toBe(approvalRef);
    expect((await h.api('GET', `/transform/v1/workflows/${workflow}`)).status).toBe(200);
    expect((await h.api('GET', `/events/v1/subscriptions/${subscription}`)).status).toBe(200);
    expect(
      (await h.api('GET', '/admin/v1/keys')).body.list.find((k: { id: string }) => k.id === apiKeyId).revoked_at,
    ).toBeNull();
    // B's upload did not land.
    expect((await h.api('GET', `${entryApi(entry)}/identity/front`, undefined, h.operator)).status).toBe(404);
  });

  it('PUT with an id another workspace holds gets the answer of a reserved free id, not "already exists"', async () => {
    const [nil, max] = RESERVED_IDS as [string, string];
    const entryPut = (id: string) => h.api('PUT', `/silo/v1/entries/${id}`, { data: party() }, other);
    const taken = await entryPut(entry);
    expect(taken.status).toBe(409);
    expect(taken.body.detail).toBe(`id ${entry} is not available: choose another id`);
    expect(seen(taken, entry)).toEqual(seen(await entryPut(nil), nil));
    expect(seen(taken, entry)).toEqual(seen(await entryPut(max), max));

    const jobPut = (id: string) =>
      h.api(
        'PUT',
        `/transform/v1/jobs/${id}`,
        { workflow_id: REGISTRATION_WORKFLOW_ID, silo_entry_id: ownEntryOfB },
        other,
      );
    const takenJob = await jobPut(job);
    expect(takenJob.status).toBe(409);
    expect(takenJob.body.detail).toBe(`id ${job} is not available: choose another id`);
    expect(seen(takenJob, job)).toEqual(seen(await jobPut(nil), nil));
    expect((await h.api('GET', `/transform/v1/jobs/${job}`)).body.silo_entry_id).toBe(entry);

    // In its own workspace a caller is told plainly (an idempotent retry needs to know).
    expect((await h.api('PUT', `/silo/v1/entries/${entry}`, { data: party() })).body.detail).toBe(
      `an entry with id ${entry} already exists`,
    );
    expect(
      (await h.api('PUT', `/transform/v1/jobs/${job}`, { workflow_id: REGISTRATION_WORKFLOW_ID, silo_entry_id: entry }))
        .body.detail,
    ).toBe(`a job with id ${job} already exists`);
  });

  it('workflow ids are per workspace: B stores its own under the id A uses', async () => {
    const r = await h.api(
      'PUT',
      `/transform/v1/workflows/${workflow}`,
      { name: 'Theirs', schema: 'org/party', steps: [setState('error')] },
      other,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect((await h.api('GET', `/transform/v1/workflows/${workflow}`)).body.name).toBe('Mine');
    expect((await h.api('GET', `/transform/v1/workflows/${workflow}`, undefined, other)).body.name).toBe('Theirs');
  });
});

describe('the migration keeps the meta rows of an existing store valid', () => {
  const engines = ['pglite', ...(process.env.TEST_DATABASE_URL ? ['postgres'] : [])] as const;
  const dir = path.join(process.cwd(), 'platform', 'store', 'migrations');
  const before = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .indexOf('1763839100000_meta-ref-per-workspace.sql');

  it.each(engines)(
    '%s: refs unique before stay valid, get their workspace, and may then repeat across workspaces',
    async (engine) => {
      const schema = `t_${crypto.randomBytes(6).toString('hex')}`;
      const db: Db = await openDb(engine === 'postgres' ? { url: process.env.TEST_DATABASE_URL!, schema } : {});
      try {
        // The store as the previous release left it.
        await db.session(async (client) => {
          const { rows } = await client.query<{ s: string }>('SELECT current_schema() AS s');
          await runner({
            dbClient: client as never,
            dir,
            direction: 'up',
            count: before,
            migrationsTable: 'schema_migrations',
            schema: rows[0]!.s,
            migrationsSchema: rows[0]!.s,
            checkOrder: true,
            singleTransaction: true,
            log: () => undefined,
          });
        });
        const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
        const [ea, eb] = [crypto.randomUUID(), crypto.randomUUID()];
        await db.query("INSERT INTO workspaces (id, name) VALUES ($1, 'a'), ($2, 'b')", [a, b]);
        await db.query(
          `INSERT INTO entries (id, workspace_id, doc_schema, data) VALUES ($1, $2, 'org/party', '{}'), ($3, $4, 'org/party', '{}')`,
          [ea, a, eb, b],
        );
        await db.query(
          `INSERT INTO entry_meta (entry_id, key, src, ref) VALUES ($1, 'crm', 'api', 'r-1'), ($1, 'approval-link', 'gov-fr', 'link-1'), ($2, 'crm', 'api', 'r-2')`,
          [ea, eb],
        );

        await migrate(db);
        const { rows } = await db.query<{ entry_id: string; workspace_id: string }>(
          'SELECT entry_id, workspace_id FROM entry_meta ORDER BY ref',
        );
        expect(rows).toEqual([
          { entry_id: ea, workspace_id: a },
          { entry_id: ea, workspace_id: a },
          { entry_id: eb, workspace_id: b },
        ]);
        expect((await putMeta(db, eb, 'crm2', { src: 'api', ref: 'r-1' })).ref).toBe('r-1'); // now fine in another workspace
        await expect(putMeta(db, ea, 'crm2', { src: 'api', ref: 'r-1' })).rejects.toThrow(
          /already used in this workspace/,
        );
        await expect(putMeta(db, eb, 'approval-link', { src: 'gov-fr', ref: 'link-1' })).rejects.toMatchObject({
          code: '23505',
        });
        // The meta row cannot claim another workspace than its entry's.
        await expect(
          db.query(`INSERT INTO entry_meta (entry_id, workspace_id, key, src) VALUES ($1, $2, 'x', 'api')`, [ea, b]),
        ).rejects.toMatchObject({ code: '23503' });
      } finally {
        if (engine === 'postgres') await db.query(`DROP SCHEMA ${schema} CASCADE`);
        await db.close();
      }
    },
  );
});
