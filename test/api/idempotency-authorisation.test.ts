// An Idempotency-Key is never a way around authorisation (issue 40, point 1). For every keyed POST of the OpenAPI
// document (a campaign's start, pause… included): the key that made a record replays it; a key of the same workspace lacking the route's scope gets the
// 403 it gets without the header; a key with the same scope runs its own request, and never sees the first answer
// (some carry a secret shown once: a new API key, a webhook secret, a Peppol migration key).
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES, type Scope } from '../../platform/store/workspaces';
import { publishParticipant } from '../../platform/store/peppol-participants';
import { makeSiren } from '../../bin/stack/sample-parties';
import { startHarness, type Harness } from '../support/harness';
import { createEntry, createWorkflow, setState, startJob } from '../support/jobs';
import { replayed, send as sendAs, type Answer } from '../support/keyed-send';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

interface KeyedPost {
  path: string;
  scope: Scope;
  example: unknown;
}

/** The keyed POSTs as the published contract lists them, each with its first request example. */
async function keyedPosts(): Promise<KeyedPost[]> {
  const doc = (await h.api('GET', '/openapi.json')).body;
  const posts: KeyedPost[] = [];
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    const op = ops.post;
    if (!op?.parameters?.some((p: { in: string; name: string }) => p.in === 'header' && p.name === 'Idempotency-Key'))
      continue;
    const examples = op.requestBody?.content?.['application/json']?.examples ?? {};
    posts.push({ path, scope: op['x-required-scope'], example: Object.values<any>(examples)[0]?.value });
  }
  return posts;
}

/** A path of the contract made concrete: an entry, a running job and a participant of the workspace. */
async function concrete(path: string): Promise<string> {
  const siren = makeSiren();
  const entryId = await createEntry(h, siren);
  const participant = `iso6523-actorid-upis::0225:${siren}`;
  if (path.includes('{participant_id}')) {
    // Published by us and at the SML: a migration key can be issued (a secret shown once).
    await publishParticipant(h.db, {
      participantId: participant,
      workspaceId: h.workspaceId,
      entryId,
      docGroups: ['france'],
      visibility: 'smp+sml',
      directory: false,
    });
    await h.db.query('UPDATE peppol_participants SET sml_registered = true WHERE participant_id = $1', [participant]);
    h.sims.sml.seedParticipant(h.config.SMP_ID, participant);
  }
  const jobId = path.includes('/jobs/{id}')
    ? await startJob(h, await createWorkflow(h, [setState('processing')]), entryId)
    : '';
  const campaignId = path.includes('/campaigns/{id}') ? await newCampaign(siren) : '';
  return path
    .replace('{silo_entry_id}', entryId)
    .replace('{participant_id}', encodeURIComponent(participant))
    .replace('{id}', jobId || campaignId);
}

/** A campaign of the workspace (its file uploaded as CSV). */
async function newCampaign(siren: string): Promise<string> {
  const res = await fetch(`${h.baseUrl}/campaigns/v1/campaigns`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': 'text/csv' },
    body: `siren;name;signer_given_name;signer_surname;signer_role;contact_email\n${siren};Société;Élodie;Martin;Présidente;e@example.fr\n`,
  });
  return ((await res.json()) as { id: string }).id;
}

const keyIn = (scopes: Scope[]) => h.newKey(scopes, h.workspaceId);
const send = (path: string, body: unknown, apiKey: string, key?: string) =>
  sendAs(path, body, { apiKey, key, baseUrl: h.baseUrl });
const SECRETS = ['api_key', 'secret', 'migration_key'];
/** The routes whose answer shows a secret once: their first request must succeed, so that there is one to steal. */
const SHOWING_A_SECRET = [
  '/admin/v1/keys',
  '/events/v1/subscriptions',
  '/apps/peppol/v1/entry/{silo_entry_id}/participants/{participant_id}/migration-key',
];
/** A request example made to succeed here: the webhook on this machine (no DNS to the example's host). */
const runnable = (path: string, example: any) =>
  path === '/events/v1/subscriptions' ? { ...example, url: 'http://127.0.0.1:9/hooks' } : example;
const secretsOf = (a: Answer) =>
  SECRETS.map((name) => a.body?.[name]).filter((v): v is string => typeof v === 'string');

describe('an Idempotency-Key on every keyed POST of the contract', async () => {
  it('is declared on the routes this suite walks', async () => {
    const posts = await keyedPosts();
    expect(posts.map((p) => p.path)).toEqual(
      expect.arrayContaining([
        '/admin/v1/keys',
        '/apps/peppol/v1/entry/{silo_entry_id}/participants/{participant_id}/migration-key',
      ]),
    );
    expect(posts.length).toBeGreaterThanOrEqual(10);
  });

  it('is replayed only to its own API key, after the scope check', async () => {
    for (const { path: template, scope, example: documented } of await keyedPosts()) {
      const at = `POST ${template}`;
      const example = runnable(template, documented);
      const path = await concrete(template);
      const [maker, peer, lesser] = await Promise.all([
        keyIn([scope]),
        keyIn([scope]),
        keyIn(SCOPES.filter((s) => s !== scope)),
      ]);
      const key = crypto.randomUUID();

      const first = await send(path, example, maker, key);
      expect(first.status < 500 && first.status !== 429, `${at}: kept (${first.status} ${first.text})`).toBe(true);
      if (SHOWING_A_SECRET.includes(template)) {
        expect(first.status, `${at}: ${first.text}`).toBeLessThan(300);
        expect(secretsOf(first), at).toHaveLength(1);
      }
      const retry = await send(path, example, maker, key);
      expect([retry.status, retry.text, replayed(retry)], at).toEqual([first.status, first.text, 'true']);

      // Lacking the scope: the header changes nothing, the 403 comes first.
      const bare = await send(path, example, lesser);
      const withKey = await send(path, example, lesser, key);
      expect([bare.status, bare.body.code], at).toEqual([403, 'forbidden']);
      expect([withKey.status, withKey.text, replayed(withKey)], at).toEqual([403, bare.text, null]);

      // The same scope: its own execution under the same header, never the first answer, then its own replay.
      const own = await send(path, example, peer, key);
      expect(replayed(own), at).toBeNull();
      for (const secret of secretsOf(first)) expect(own.text, `${at}: the first answer's secret`).not.toContain(secret);
      // A creation makes its own; an act on a resource (`{id}`: a campaign started, cancelled) acts on that one.
      if (first.status < 300 && own.status < 300 && typeof first.body?.id === 'string' && !template.includes('{id}'))
        expect(own.body.id, `${at}: a creation of its own`).not.toBe(first.body.id);
      const ownRetry = await send(path, example, peer, key);
      expect([ownRetry.text, replayed(ownRetry)], at).toEqual([own.text, 'true']);
    }
  }, 120_000);

  it("hands neither an admin key's secret nor a migration key to a read-only key (the attacks found)", async () => {
    const admin = await keyIn(['admin']);
    const readOnly = await keyIn(['events:read']);
    const key = crypto.randomUUID();
    const body = { name: 'ci', scopes: ['admin'] };
    const made = await send('/admin/v1/keys', body, admin, key);
    expect(made.status, made.text).toBe(201);
    const stolen = await send('/admin/v1/keys', body, readOnly, key);
    expect([stolen.status, replayed(stolen)]).toEqual([403, null]);
    expect(stolen.text).not.toContain(made.body.api_key);

    const path = await concrete('/apps/peppol/v1/entry/{silo_entry_id}/participants/{participant_id}/migration-key');
    const issued = await send(path, undefined, await keyIn(['entries:rw']), key);
    expect(issued.status, issued.text).toBe(201);
    const taken = await send(path, undefined, readOnly, key);
    expect([taken.status, replayed(taken)]).toEqual([403, null]);
    expect(taken.text).not.toContain(issued.body.migration_key);
  });
});
