// Refs in paths never reach the logs: every operation the OpenAPI document lists with a path parameter named like a
// ref (the wizard's link, the meta lookup by ref) is called with a recognisable ref, as written and as a client or
// an attacker might spell it, and no captured log line may hold it.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appWith, type AppWith } from '../support/app-with';
import { startHarness, type Harness } from '../support/harness';
import { makeSiren, party } from '../../bin/stack/sample-parties';
import { redactPath } from '../../platform/observability/logger';
import '../../api/observability'; // registers the operations' ref routes, as the app does

let h: Harness;
let app: AppWith;
beforeAll(async () => {
  h = await startHarness();
  app = await appWith(h, {});
});
afterAll(async () => {
  await app?.close();
  await h?.close();
});

interface PathParameter {
  name: string;
  in: string;
}
type OpenApi = { paths: Record<string, Record<string, { parameters?: PathParameter[] }>> };

const REF_NAME = /ref/i;
/** A ref nobody could mistake: 43 base64url characters, as the wizard's, with a marker and a serial number. */
let serial = 0;
const newRef = () => `REFxSECRETx${String(++serial).padStart(4, '0')}x${crypto.randomBytes(24).toString('base64url')}`;

/** A plausible value for the other parameters: the route is then the one the ref's parameter belongs to. */
const valueOf = (name: string) =>
  /id$/.test(name) ? crypto.randomUUID() : name === 'key' ? 'approval-link' : name === 'siren' ? makeSiren() : 'x';

/** The ways a path can be spelt that routing (or a 404) still meets: each must be redacted. */
const spellings: Record<string, (path: string, ref: string) => string> = {
  'as documented': (p) => p,
  'upper-case route': (p, ref) =>
    p
      .split('/')
      .map((s) => (s === ref ? s : s.toUpperCase()))
      .join('/'),
  'a trailing slash': (p) => `${p}/`,
  'a segment after it': (p) => `${p}/extra`,
  'the ref percent-encoded': (p, ref) =>
    p.replace(ref, [...ref].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')),
  'under another path': (p) => `/x${p}`,
  'doubled slashes': (p) => p.replaceAll('/', '//'),
};

describe('refs in paths are redacted from the logs', () => {
  it('for every operation of the OpenAPI document with a path parameter named like a ref, however spelt', async () => {
    const doc = (await (await fetch(`${app.url}/openapi.json`)).json()) as OpenApi;
    const calls: { id: string; method: string; url: string; ref: string; spelt: string; route: string }[] = [];
    for (const [route, methods] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(methods)) {
        const refParams = (op.parameters ?? []).filter((p) => p.in === 'path' && REF_NAME.test(p.name));
        if (!refParams.length) continue;
        for (const [how, spell] of Object.entries(spellings)) {
          const ref = newRef();
          const path = route.replace(/\{(\w+)\}/g, (_, name: string) => (REF_NAME.test(name) ? ref : valueOf(name)));
          const spelt = spell(path, ref);
          calls.push({
            id: `redact-${calls.length}`,
            method,
            url: `${app.url}${spelt}`,
            ref,
            spelt: spelt.split('/').find((s) => s.length >= 43)!, // the ref as the request carries it
            route: `${route} ${how}`,
          });
        }
      }
    // The document has them: the meta lookup by ref and the wizard's operations.
    const routes = new Set(calls.map((c) => c.route.split(' ')[0]));
    expect(routes).toContain('/silo/v1/entries/meta/{key}/{ref}');
    expect(routes).toContain('/reg/{ref}/api/state');

    for (const c of calls) {
      const res = await fetch(c.url, {
        method: c.method.toUpperCase(),
        headers: {
          authorization: `Bearer ${h.apiKey}`,
          'x-request-id': c.id,
          ...(c.method !== 'get' && { 'content-type': 'application/json' }),
        },
        ...(c.method !== 'get' && { body: '{}' }),
      });
      await res.arrayBuffer();
      expect(res.status, `${c.method} ${c.route}`).toBeLessThan(500);
    }
    // Every request was logged, with its path, and no line holds a ref (however encoded).
    await expect
      .poll(() => calls.every((c) => app.lines.some((l) => (l.req as { id?: string })?.id === c.id)))
      .toBe(true);
    const all = JSON.stringify(app.lines);
    for (const c of calls) {
      const line = app.lines.find((l) => (l.req as { id?: string })?.id === c.id)!;
      expect((line.req as { path: string }).path, c.route).toMatch(/:ref/);
      expect(all, c.route).not.toContain(c.ref);
      expect(all, c.route).not.toContain(c.spelt);
      expect(all.toLowerCase(), c.route).not.toContain(c.ref.slice(0, 20).toLowerCase());
    }
  });

  it('in a meta lookup that finds its row', async () => {
    const entryId = crypto.randomUUID();
    await h.api('PUT', `/silo/v1/entries/${entryId}`, { data: party(makeSiren()) });
    const ref = newRef();
    expect((await h.api('PUT', `/silo/v1/entries/${entryId}/meta/crm`, { ref, value: { n: 1 } })).status).toBe(200);
    const res = await fetch(`${app.url}/silo/v1/entries/meta/crm/${ref}`, {
      headers: { authorization: `Bearer ${h.apiKey}`, 'x-request-id': 'redact-found' },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { ref: string }).ref).toBe(ref);
    await expect.poll(() => app.lines.find((l) => (l.req as { id?: string })?.id === 'redact-found')).toBeTruthy();
    const line = app.lines.find((l) => (l.req as { id?: string })?.id === 'redact-found')!;
    expect(line).toMatchObject({ req: { path: '/silo/v1/entries/meta/crm/:ref' }, res: { status: 200 } });
    expect(JSON.stringify(app.lines)).not.toContain(ref);
  });

  it('redactPath: the route wherever it stands, decoded, in any case; other paths untouched', () => {
    const r = 'A'.repeat(43);
    expect(redactPath(`/silo/v1/entries/meta/approval-link/${r}`)).toBe('/silo/v1/entries/meta/approval-link/:ref');
    expect(redactPath(`/SILO/v1/Entries/%6deta/k/${r}`)).toBe('/SILO/v1/Entries/%6deta/k/:ref');
    expect(redactPath(`/silo/v1/entries/meta/k%2F${r}`)).toBe('/silo/v1/entries/meta/k/:ref');
    expect(redactPath(`/silo/v1/entries/meta/k/${r}/x/${r}`)).toBe('/silo/v1/entries/meta/k/:ref/x/:ref');
    expect(redactPath(`/a/../silo/v1/entries/meta/k/short`)).toBe('/a/../silo/v1/entries/meta/k/:ref');
    expect(redactPath(`/silo/v1/entries/${r}/meta/k`)).toBe(`/silo/v1/entries/${r}/meta/k`); // an id, not a ref
    expect(redactPath('/silo/v1/entries/key/my-key')).toBe('/silo/v1/entries/key/my-key');
  });
});
