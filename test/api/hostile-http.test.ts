// The HTTP layer as an attacker meets it: JSON nested beyond any recursion on every JSON route (and generated JSON
// of any shape: never a 5xx), security and cache headers on responses with personal data, limits before
// authentication and per wizard link (behind a trusted proxy too), the wizard's ref kept out of the logs whatever
// the path's case or encoding, the production start refused with /metrics open, problem titles, and the directory
// identifier length; campaign files (compressed, nested, slow to check, full of formulas). The SSRF forms are in
// test/domain/events/url-guard.test.ts.
// Over 300 lines: the attacker's suite kept in one place, one harness started once for all of it.
import crypto from 'node:crypto';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import zlib from 'node:zlib';
import path from 'node:path';
import fc from 'fast-check';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiDeps } from '../../api/app';
import { MAX_JSON_DEPTH, assertStorable } from '../../web/http/no-nul';
import { serveInternalMetrics } from '../../api/metrics-endpoint';
import { OPERATIONS, operationFor } from '../../api/operations';
import { HttpProblem, problemTitle } from '../../web/http/problem';
import { assertApiConfigSafe, loadConfig } from '../../platform/config';
import { redactPath } from '../../platform/observability/logger';
import { publishParticipant } from '../../platform/store/peppol-participants';
import { appWith as appWithConfig } from '../support/app-with';
import { startHarness, type Harness } from '../support/harness';
import { makeSiren } from '../../bin/stack/sample-parties';
import { b64, png } from '../../bin/stack/sample-images';
import { jobWhen } from '../support/jobs';
import { approve, entryApi, newParty, signInApp, startRegistration } from '../support/registration';
import { whilePinging } from '../support/hostile-files';

const repo = path.join(__dirname, '..', '..');
let h: Harness;
let entryId: string;
let ref: string;

beforeAll(async () => {
  h = await startHarness();
  entryId = await newParty(h);
  await jobWhen(h, await startRegistration(h, entryId), ['WAIT']);
  ref = (await h.api('GET', `/silo/v1/entries/${entryId}/meta/approval-link`)).body.ref;
});
afterAll(() => h?.close());

const appWith = (config: Partial<ApiDeps['config']>) => appWithConfig(h, config);

const nestedArrays = (depth: number, leaf = '1') => `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;
const nestedObjects = (depth: number, leaf = '1') => `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;

/** Every operation that takes a JSON body, its path filled with this file's entry and ref. */
function jsonRoutes(): { method: string; path: string }[] {
  return OPERATIONS.filter((o) => o.body).map((o) => ({
    method: o.method.toUpperCase(),
    path: o.path.replace(/:(\w+)/g, (_, name: string) =>
      name === 'ref'
        ? ref
        : name === 'silo_entry_id' || (name === 'id' && o.path.startsWith('/silo/'))
          ? entryId
          : name === 'id'
            ? crypto.randomUUID()
            : `hostile-${name}`,
    ),
  }));
}

/** As the route's own caller: the workspace's key, or an operator on the operators' routes. */
const send = (method: string, p: string, text: string) =>
  fetch(`${h.baseUrl}${p}`, {
    method,
    headers: {
      authorization: `Bearer ${operationFor(method, p)?.operator ? h.operator : h.apiKey}`,
      'content-type': 'application/json',
    },
    body: text,
  });

describe('JSON nested deeper than any handler expects', () => {
  it("is a 400 naming the limit on every JSON route, the wizard's included, and the API keeps answering", async () => {
    const routes = jsonRoutes();
    expect(routes.map((r) => r.path.split('/')[1])).toEqual(
      expect.arrayContaining(['silo', 'transform', 'events', 'admin', 'apps', 'reg']),
    );
    for (const { method, path: p } of routes) {
      // Under every route's size limit (16 KB the smallest): the depth is what gets refused.
      for (const body of [nestedArrays(6000), nestedObjects(2500)]) {
        const res = await send(method, p, body);
        const problem = (await res.json()) as { title: string; detail: string };
        expect(res.status, `${method} ${p}: ${problem.detail}`).toBe(400);
        expect(problem.title).toBe('Bad Request');
        // Upload routes refuse so much structure before parsing it (see below).
        const upload = method === 'POST' && /\/(identity|sign|agreement)$/.test(p);
        expect(problem.detail).toMatch(
          upload ? /more than 64 separators/ : new RegExp(`nested deeper than ${MAX_JSON_DEPTH} levels`),
        );
      }
      const huge = await send(method, p, `{"data":${nestedArrays(300_000)}}`); // 600 KB: too deep or too large
      expect([400, 413], `${method} ${p}`).toContain(huge.status);
    }
    expect((await h.api('GET', '/utils/v1/ping', undefined, null)).body).toEqual({ ping: 'pong' });
  });

  it('an upload body of megabytes of structure is refused unparsed, on the entry API and the wizard alike', async () => {
    // 4.5 MB of `{},`: JSON.parse alone would hold the event loop for about a quarter of a second.
    const body = `{"view":"front","data":[${'{},'.repeat(1_500_000)}{}]}`;
    for (const p of [`/apps/gov-fr/v1/entry/${entryId}/identity`, `/reg/${ref}/api/identity`]) {
      await new Promise((r) => setTimeout(r, 500)); // the previous request's garbage collected first
      const { result, maxDelayMs } = await whilePinging(h, async () => {
        const res = await send('POST', p, body);
        return { status: res.status, problem: (await res.json()) as { detail: string } };
      });
      expect(result.status, p).toBe(400);
      expect(result.problem.detail).toMatch(/more than 64 separators/);
      expect(maxDelayMs, p).toBeLessThan(100);
    }
  });

  it(`keeps values of ${MAX_JSON_DEPTH} levels, refuses ${MAX_JSON_DEPTH + 1}`, async () => {
    // {"value": …}: the body is one level, the value the rest.
    const put = (depth: number) =>
      send('PUT', `/silo/v1/entries/${entryId}/meta/deep`, `{"value":${nestedArrays(depth - 1, '"x"')}}`);
    const kept = await put(MAX_JSON_DEPTH);
    expect(kept.status, await kept.clone().text()).toBe(200);
    expect(JSON.stringify(((await kept.json()) as { value: unknown }).value)).toBe(
      nestedArrays(MAX_JSON_DEPTH - 1, '"x"'),
    );
    const refused = await put(MAX_JSON_DEPTH + 1);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(
      /^body(\.value)(\.0)+: nested deeper than 32/,
    );
  });

  it('is refused before any recursive walk (zod, JSON.stringify) sees it: a 400, not a stack overflow', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(() => JSON.stringify(deep)).toThrow(RangeError); // what zod or the store would meet
    const err = (() => {
      try {
        assertStorable(deep, 'body');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(HttpProblem);
    expect((err as HttpProblem).status).toBe(400);
    // Wide is fine, and walked without holding the event loop: the three million numbers of a 6 MB body (once 3 s).
    const wide = { list: new Array(3_000_000).fill(0) };
    const started = performance.now();
    expect(() => assertStorable(wide, 'body')).not.toThrow();
    expect(performance.now() - started).toBeLessThan(1000);
    // NUL still found, in a key as in a value, reported in document order.
    expect(() => assertStorable({ a: 'ok', b: ['x', 'a\u0000b'] }, 'body')).toThrow(/body\.b\.1: the NUL character/);
    expect(() => assertStorable({ 'k\u0000': 1 }, 'body')).toThrow(/body\.<key>: the NUL character/);
  });
});

describe('security and cache headers', () => {
  const expectHardened = (res: Response, what: string) => {
    expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
    expect(res.headers.get('cache-control'), what).toBe('no-store');
    expect(res.headers.get('strict-transport-security'), what).toMatch(/max-age=\d+/);
    expect(res.headers.get('referrer-policy'), what).toBe('no-referrer');
  };

  it('marks every response with personal data no-store and nosniff', async () => {
    expect((await h.api('POST', `${entryApi(entryId)}/identity`, { view: 'front', data: b64(png()) })).status).toBe(
      204,
    );
    const keyed = [
      ['the entry', `/silo/v1/entries/${entryId}`, h.apiKey],
      ['the mandate', `${entryApi(entryId)}/agreement`, h.apiKey],
      ['the review queue', '/apps/gov-fr/v1/review/submissions', h.operator],
      ['an identity image', `${entryApi(entryId)}/identity/front`, h.operator],
      ['a problem', `/silo/v1/entries/${crypto.randomUUID()}`, h.apiKey],
    ];
    for (const [what, p, credential] of keyed) {
      const res = await fetch(`${h.baseUrl}${p}`, { headers: { authorization: `Bearer ${credential}` } });
      expect(res.status, what).toBeLessThan(what === 'a problem' ? 500 : 400);
      expectHardened(res, what!);
      expect(res.headers.get('x-frame-options'), what).toBe('DENY');
      expect(res.headers.get('content-security-policy'), what).toMatch(/^default-src 'none'/); // loads nothing (a route may add to it)
    }
    for (const p of [`/reg/${ref}/api/state`, `/reg/${ref}/api/agreement`]) {
      const res = await fetch(`${h.baseUrl}${p}`);
      expect(res.status, p).toBe(200);
      expectHardened(res, p);
    }
  });

  it('lets the wizard be framed by its own CSP only, and keeps the public caches of the SMP and static files', async () => {
    const page = await fetch(`${h.baseUrl}/reg/${ref}/start`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/frame-ancestors 'self'/);
    expect(page.headers.get('x-frame-options')).toBeNull(); // would forbid the customers' iframes WIZARD_FRAME_ANCESTORS allows
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('cache-control')).toBe('no-store');

    const asset = await fetch(`${h.baseUrl}/reg/assets/signature_pad.js`);
    expect(asset.headers.get('cache-control')).toMatch(/^public, max-age=\d+/);
    expect(asset.headers.get('x-content-type-options')).toBe('nosniff');

    const siren = makeSiren();
    const participantId = `iso6523-actorid-upis::0225:${siren}`;
    await publishParticipant(h.db, {
      participantId,
      workspaceId: h.workspaceId,
      entryId: await newParty(h, siren),
      docGroups: ['france'],
      visibility: 'smp+sml+peppol',
      directory: true,
    });
    const smp = await fetch(`${h.baseUrl}/smp/${encodeURIComponent(participantId)}`);
    expect(smp.status).toBe(200);
    expect(smp.headers.get('cache-control')).toBe(`public, max-age=${h.config.SMP_HTTP_MAX_AGE_S}`);
    expect(smp.headers.get('etag')).toMatch(/^"/);
    expect(smp.headers.get('x-content-type-options')).toBe('nosniff');
    expect(
      (
        await fetch(`${h.baseUrl}/smp/${encodeURIComponent(participantId)}`, {
          headers: { 'if-none-match': smp.headers.get('etag')! },
        })
      ).status,
    ).toBe(304);
  });
});

describe('limits', () => {
  const expectLimited = async (res: Response, reason: RegExp) => {
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = (await res.json()) as { title: string; detail: string };
    expect(problem.title).toBe('Too Many Requests');
    expect(problem.detail).toMatch(reason);
  };

  it('counts an authenticated request against its key, failed authentications per address apart, and never limits probes', async () => {
    expect(loadConfig({}).ipRateLimitPerMinute).toBe(2 * loadConfig({}).RATE_LIMIT_PER_MINUTE); // the default
    expect(loadConfig({ RATE_LIMIT_PER_IP_PER_MINUTE: '7' }).ipRateLimitPerMinute).toBe(7);
    expect(loadConfig({}).RATE_LIMIT_FAILED_AUTH_PER_MINUTE).toBe(60);
    const app = await appWith({
      ipRateLimitPerMinute: 4,
      RATE_LIMIT_FAILED_AUTH_PER_MINUTE: 3,
      RATE_LIMIT_PER_MINUTE: 5,
    });
    const otherKey = await h.newKey(['entries:rw']);
    try {
      const entries = (key: string) =>
        fetch(`${app.url}/silo/v1/entries`, { headers: { authorization: `Bearer ${key}` } });
      for (let i = 0; i < 3; i++) expect((await entries(`pak_guess${i}`)).status).toBe(401);
      await expectLimited(await entries('pak_guess3'), /3 failed authentications per minute reached for your address/);
      await expectLimited(await fetch(`${app.url}/transform/v1/jobs`), /failed authentications/); // no key at all
      // Valid keys from the same address go on, each counted against itself only.
      for (let i = 0; i < 5; i++) expect((await entries(h.apiKey)).status).toBe(200);
      await expectLimited(await entries(h.apiKey), /5 requests per minute reached for this API key/);
      for (let i = 0; i < 5; i++) expect((await entries(otherKey)).status).toBe(200);
      // Probes are never limited: an orchestrator behind the same address must not see the service die.
      for (const probe of ['/utils/v1/ping', '/utils/v1/health/live', '/utils/v1/health/ready', '/metrics'])
        for (let i = 0; i < 6; i++) expect((await fetch(`${app.url}${probe}`)).status, probe).toBe(200);
      // The public pages and files count per address.
      for (let i = 0; i < 3; i++) expect((await fetch(`${app.url}/openapi.json`)).status).toBe(200);
      expect((await fetch(`${app.url}/reg/${ref}/api/state`)).status).toBe(200);
      await expectLimited(
        await fetch(`${app.url}/reg/${ref}/api/state`),
        /4 requests per minute reached for your address/,
      );
      await expectLimited(await fetch(`${app.url}/no/such/page`), /your address/);
      // An authenticated request to a path no route answers counts against its key, not the address.
      const third = await h.newKey(['entries:rw']);
      const unknownPath = await fetch(`${app.url}/silo/v1/no-such`, { headers: { authorization: `Bearer ${third}` } });
      expect(unknownPath.status).toBe(404);
      await expectLimited(await fetch(`${app.url}/docs/`), /your address/);
      // And the SMP is not: access points read it from behind shared addresses, and its answers are cached.
      expect((await fetch(`${app.url}/smp/iso6523-actorid-upis%3A%3A0225%3A000000000`)).status).toBe(404);
    } finally {
      await app.close();
    }
  });

  it('counts the client behind a trusted proxy by X-Forwarded-For, and believes the header from no one else', async () => {
    expect(() => loadConfig({ TRUST_PROXY: 'everyone' })).toThrow(/hop count, or addresses and CIDRs/);
    expect(loadConfig({ TRUST_PROXY: '1' }).TRUST_PROXY).toBe(1);
    const behindProxy = await appWith({
      ipRateLimitPerMinute: 3,
      TRUST_PROXY: loadConfig({ TRUST_PROXY: '127.0.0.0/8, ::1' }).TRUST_PROXY,
    });
    const direct = await appWith({ ipRateLimitPerMinute: 3 });
    try {
      const ping = (url: string, client: string) =>
        fetch(`${url}/openapi.json`, { headers: { 'x-forwarded-for': client } });
      for (let i = 0; i < 3; i++) expect((await ping(behindProxy.url, '203.0.113.7')).status).toBe(200);
      await expectLimited(await ping(behindProxy.url, '203.0.113.7'), /your address/);
      expect((await ping(behindProxy.url, '198.51.100.9')).status).toBe(200); // another client, not limited
      // Without a trusted proxy the header is anyone's to forge: the connection's address counts.
      for (let i = 0; i < 3; i++) expect((await ping(direct.url, `203.0.113.${i}`)).status).toBe(200);
      await expectLimited(await ping(direct.url, '198.51.100.9'), /your address/);
    } finally {
      await behindProxy.close();
      await direct.close();
    }
  });

  it('limits each wizard link, whatever the case or encoding of its address', async () => {
    const app = await appWith({ WIZARD_RATE_LIMIT_PER_REF_PER_MINUTE: 3 });
    try {
      for (let i = 0; i < 3; i++) expect((await fetch(`${app.url}/reg/${ref}/api/state`)).status).toBe(200);
      const encoded = `%${ref.charCodeAt(0).toString(16).toUpperCase()}${ref.slice(1)}`;
      for (const p of [
        `/reg/${ref}/api/state`,
        `/REG/${ref}/api/state`,
        `/reg/${encoded}/api/state`,
        `/reg/${ref}/start`,
      ]) {
        await expectLimited(await fetch(`${app.url}${p}`), /3 requests per minute reached for this registration link/);
      }
      expect((await fetch(`${app.url}/reg/${'A'.repeat(43)}/api/state`)).status).toBe(404); // another link: its own count
      expect((await fetch(`${app.url}/reg/assets/wizard.js`)).status).toBe(200); // static files are no link
      expect((await fetch(`${app.url}/reg/%E0%A4%A/start`)).status).toBe(404); // an undecodable link is still just unknown
    } finally {
      await app.close();
    }
  });
});

describe('logs', () => {
  it('never show the wizard ref, whatever the case or encoding of the path', async () => {
    const app = await appWith({});
    try {
      const hex = (s: string) => [...s].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
      const variants = [
        `/reg/${ref}/api/state`,
        `/REG/${ref}/api/state`,
        `/Reg/${ref}/start`,
        `/%72eg/${ref}/api/state`,
        `/%52EG/${ref}/api/state`,
        `/reg/${hex(ref.slice(0, 1))}${ref.slice(1)}/api/state`,
        `/reg/${hex(ref)}/api/state`,
        `/%2572eg/${ref}/api/state`,
        `//reg/${ref}/api/state`,
        `/reg%2F${ref}/api/state`,
        `/reg/${ref}`,
        `/reg/${ref}?lang=en`,
      ];
      const statuses: number[] = [];
      for (const p of variants) statuses.push((await fetch(`${app.url}${p}`)).status);
      expect(statuses.slice(0, 3)).toEqual([200, 200, 200]); // routed to the wizard whatever the case
      expect(statuses[5]).toBe(200); // and whatever the encoding of the ref
      await expect.poll(() => app.lines.filter((l) => l.req).length).toBeGreaterThanOrEqual(variants.length);
      const logged = app.lines.map((l) => (l.req as { path?: string } | undefined)?.path).filter(Boolean) as string[];
      expect(logged.filter((p) => p.includes(':ref'))).toHaveLength(variants.length);
      const secret = ref.slice(2, 16).toLowerCase();
      const decoded = (s: string) => {
        for (let i = 0; i < 3; i++) s = decodeURIComponent(s.replace(/%(?![0-9a-f]{2})/gi, '%25'));
        return s.toLowerCase();
      };
      expect(JSON.stringify(app.lines).toLowerCase()).not.toContain(secret);
      for (const p of logged) expect(decoded(p), p).not.toContain(secret);
    } finally {
      await app.close();
    }
  });

  it('redacts what routing would read as a wizard path', () => {
    expect(redactPath('/reg/abc/api/state')).toBe('/reg/:ref/api/state');
    expect(redactPath('/REG/abc/start')).toBe('/REG/:ref/start');
    expect(redactPath('/%72eg/abc')).toBe('/%72eg/:ref');
    expect(redactPath('/reg%2Fabc/api')).toBe('/reg/:ref/api');
    expect(redactPath('/x/../reg/abc')).toBe('/x/../reg/:ref');
    expect(redactPath('/reg/assets/wizard.js')).toBe('/reg/assets/wizard.js');
    expect(redactPath('/silo/v1/entries/abc')).toBe('/silo/v1/entries/abc');
    expect(redactPath('/reg/%E0%A4%A/x')).toBe('/reg/:ref/x'); // broken encoding
    // A ref further down the path, behind dot segments (the client did not normalise them).
    const r = 'DOE3JQXuoy6d8KFHMWkA0Q-U5yZC1CRay1StgmfapNo';
    expect(redactPath(`/reg/${r}/../${r}/start`)).toBe('/reg/:ref/../:ref/start');
    expect(redactPath(`/reg/${r}/%2e%2e/${r}/api/state`)).toBe('/reg/:ref/%2e%2e/:ref/api/state');
  });
});

describe('production settings', () => {
  const freshEnv = (extra: Record<string, string>) => {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.tmpdir(),
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'pa-prod-')),
      ...extra,
    };
    return env;
  };
  const run = (script: string, env: Record<string, string>) =>
    new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', script], {
        cwd: repo,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.once('exit', (code) => (clearTimeout(timer), resolve({ code, output })));
    });

  it('refuse to start the API with /metrics open to anyone, naming the variables', async () => {
    const https = { PUBLIC_BASE_URL: 'https://pa.example.com' };
    for (const script of ['bin/api.ts', 'bin/start.ts']) {
      const { code, output } = await run(script, freshEnv({ NODE_ENV: 'production', ...https }));
      expect(code, output).toBe(1);
      expect(output).toMatch(
        /NODE_ENV=production: \/metrics would be open to anyone\. Set METRICS_TOKEN .* or METRICS_PORT/,
      );
    }
    const prod = (env: Record<string, string>) => () =>
      assertApiConfigSafe(loadConfig({ NODE_ENV: 'production', ...https, ...env }));
    expect(prod({})).toThrow(/METRICS_TOKEN/);
    expect(prod({ METRICS_TOKEN: 'a-long-enough-metrics-token' })).not.toThrow();
    expect(prod({ METRICS_PORT: '9100' })).not.toThrow();
    expect(() => assertApiConfigSafe(loadConfig({}))).not.toThrow(); // development: the embedded stack as before
  });

  it('refuse an SMP or access-point address that is not https://, in the API and the worker alike', async () => {
    const secure = { METRICS_TOKEN: 'a-long-enough-metrics-token' };
    for (const script of ['bin/api.ts', 'bin/worker.ts']) {
      const { code, output } = await run(script, freshEnv({ NODE_ENV: 'production', ...secure }));
      expect(code, output).toBe(1);
      expect(output).toMatch(
        /Peppol requires https:\/\/ addresses, and SMP_PUBLIC_URL is http:\/\/.*\/smp \(from PUBLIC_BASE_URL\)/,
      );
    }
    const prod = (env: Record<string, string>) => () => loadConfig({ NODE_ENV: 'production', ...secure, ...env });
    expect(prod({ PUBLIC_BASE_URL: 'https://pa.example.com', AP_ENDPOINT_URL: 'http://ap.example.com/as4' })).toThrow(
      /AP_ENDPOINT_URL is http:\/\/ap\.example\.com\/as4/,
    );
    expect(prod({ PUBLIC_BASE_URL: 'https://pa.example.com', SMP_PUBLIC_URL: 'http://smp.example.com' })).toThrow(
      /SMP_PUBLIC_URL is http:\/\/smp\.example\.com;?/,
    );
    expect(
      prod({
        PUBLIC_BASE_URL: 'http://internal:8080',
        SMP_PUBLIC_URL: 'https://smp.example.com',
        AP_ENDPOINT_URL: 'https://ap.example.com/as4',
      }),
    ).not.toThrow();
    expect(() => loadConfig({ PUBLIC_BASE_URL: 'http://localhost:8080' })).not.toThrow(); // development
  });

  it('start with docker-compose.yml and .env.example as they are', () => {
    const compose = parse(fs.readFileSync(path.join(repo, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
      services: Record<string, { environment: Record<string, string> }>;
    };
    const example = Object.fromEntries(
      fs
        .readFileSync(path.join(repo, '.env.example'), 'utf8')
        .split('\n')
        .filter((l) => /^[A-Z_]+=/.test(l))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    const env = Object.fromEntries(
      Object.entries(compose.services.api!.environment).map(([k, v]) => [
        k,
        String(v).replace(/\$\{(\w+)\}/g, (_, n: string) => example[n] ?? ''),
      ]),
    );
    expect(() => assertApiConfigSafe(loadConfig({ ...env, NODE_ENV: 'production' }))).not.toThrow();
  });

  it('serve /metrics on the internal listener only when METRICS_PORT is set', async () => {
    const app = await appWith({ METRICS_PORT: 9 });
    const internal = (await serveInternalMetrics({
      ...h.config,
      METRICS_PORT: 0,
      METRICS_HOST: '127.0.0.1',
    } as never))!;
    try {
      expect((await fetch(`${app.url}/metrics`)).status).toBe(404);
      const res = await fetch(`http://127.0.0.1:${(internal.address() as AddressInfo).port}/metrics`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('process_cpu_user_seconds_total');
    } finally {
      await app.close();
      internal.close();
    }
  });
});

describe('problems', () => {
  it('every status has a meaningful title', () => {
    for (let status = 400; status < 600; status++)
      expect(problemTitle(status), String(status)).not.toMatch(/^(Error)?$/);
    expect(problemTitle(410)).toBe('Gone');
    expect(problemTitle(429)).toBe('Too Many Requests');
  });

  it('a directory lookup identifier over 125 characters is a 400, not a trip to the Annuaire', async () => {
    const siren = makeSiren();
    const id = (length: number) => `${siren}_${'a'.repeat(length - siren.length - 1)}`;
    for (const identifier of [id(126), id(130), `0225:${id(126)}`]) {
      const r = await h.api('GET', `/apps/gov-fr/v1/directory/identifier/${identifier}`);
      expect(r.status, identifier).toBe(400);
      expect(r.body.detail).toMatch(/at most 125 characters/);
    }
    for (const identifier of [id(125), `0225:${id(125)}`]) {
      const r = await h.api('GET', `/apps/gov-fr/v1/directory/identifier/${identifier}`);
      expect(r.status, identifier).toBe(200);
      expect(r.body.count).toBe(0);
    }
  });

  it('a path past the header limit, or bytes that are not HTTP, get a problem with a code, and the API goes on', async () => {
    const long = await fetch(`${h.baseUrl}/silo/v1/entries/${'a'.repeat(20_000)}`);
    expect([long.status, long.headers.get('content-type')]).toEqual([431, 'application/problem+json']);
    expect(await long.json()).toMatchObject({ status: 431, code: 'headers-too-large', detail: expect.any(String) });
    const { port } = new URL(h.baseUrl);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1', () =>
        socket.write('GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n'),
      );
      let answer = '';
      socket.on('data', (d) => (answer += d.toString()));
      socket.on('end', () => resolve(answer));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(raw.split('\r\n\r\n')[1]!)).toMatchObject({ status: 400, code: 'malformed-http' });
    expect((await h.api('GET', '/silo/v1/entries?limit=1')).status).toBe(200);
  });

  it("a finished registration's wizard link is 410 Gone", async () => {
    const done = await newParty(h);
    const jobId = await startRegistration(h, done);
    await jobWhen(h, jobId, ['WAIT']);
    const doneRef = (await h.api('GET', `/silo/v1/entries/${done}/meta/approval-link`)).body.ref;
    await signInApp(h, done);
    await expect
      .poll(async () => (await h.api('GET', `/silo/v1/entries/${done}`)).body.state, { timeout: 15_000 })
      .toBe('submitted');
    await approve(h, done);
    await jobWhen(h, jobId, ['OK'], 60_000);
    const r = await h.api('GET', `/reg/${doneRef}/api/state`, undefined, null);
    expect(r.status).toBe(410);
    expect(r.body).toMatchObject({ title: 'Gone', code: 'link-finished' });
  }, 120_000);
});

describe('generated JSON', () => {
  it('of any value and nesting never gives a 5xx; past the depth limit, a 400', { timeout: 300_000 }, async () => {
    const routes = jsonRoutes();
    const depthOf = (v: unknown): number =>
      v && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.jsonValue({ maxDepth: 4 }),
        fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 20_000 })),
        fc.boolean(),
        async (route, value, depth, arrays) => {
          const text = (arrays ? nestedArrays : nestedObjects)(depth, JSON.stringify(value));
          const res = await send(route.method, route.path, text);
          const body = await res.text();
          expect(
            res.status,
            `${route.method} ${route.path} at depth ${depth} → ${res.status} ${body.slice(0, 300)}`,
          ).toBeLessThan(500);
          if (depth + depthOf(value) > MAX_JSON_DEPTH) expect([400, 413]).toContain(res.status); // 413: over a 16 KB limit
        },
      ),
      { numRuns: Number(process.env.HOSTILE_HTTP_RUNS ?? 150) },
    );
  });
});

describe('campaign files', () => {
  const header = 'siren;name;signer_given_name;signer_surname;signer_role;contact_email';
  const upload = (body: Buffer | string, headers: Record<string, string> = {}) =>
    fetch(`${h.baseUrl}/campaigns/v1/campaigns`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': 'text/csv', ...headers },
      body,
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

  it('are never inflated: a gzip-encoded file is bytes that are not UTF-8, refused on its first line', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(50 * 1024 * 1024, 'a'));
    const r = await upload(bomb, { 'content-encoding': 'gzip' });
    expect([r.status, r.body.code, r.body.detail]).toEqual([400, 'bad-encoding', expect.stringMatching(/^line 1 /)]);
  });

  it('a row of control characters, nested JSON or a formula is that row’s fault; the others are kept', async () => {
    const nested = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const jsonl = [
      nested,
      JSON.stringify({
        siren: makeSiren(),
        name: 'A\u0000B',
        signer_given_name: 'x',
        signer_surname: 'y',
        signer_role: 'z',
        contact_email: 'a@b.fr',
      }),
      JSON.stringify({
        siren: makeSiren(),
        name: '=cmd|"/c calc"!A1',
        signer_given_name: 'x',
        signer_surname: 'y',
        signer_role: 'z',
        contact_email: 'a@b.fr',
      }),
    ].join('\n');
    const r = await upload(jsonl, { 'content-type': 'application/jsonl' });
    expect(r.status).toBe(201);
    const rows = (await h.api('GET', `/campaigns/v1/campaigns/${r.body.id}/rows`)).body.list;
    expect(rows.map((x: { line: number; faults?: { column: string }[] }) => [x.line, x.faults?.[0]?.column])).toEqual([
      [1, 'row'],
      [2, 'name'],
      [3, undefined],
    ]);
    expect(rows[1].name).toBe('A\uFFFDB'); // the company name kept beside its fault, as PostgreSQL can hold it
    const report = await fetch(`${h.baseUrl}/campaigns/v1/campaigns/${r.body.id}/report.csv`, {
      headers: { authorization: `Bearer ${h.apiKey}` },
    });
    expect(await report.text()).toContain(`"'=cmd|""/c calc""!A1"`);
    // A NUL in a cell is echoed in its fault, as U+FFFD (PostgreSQL's jsonb holds no NUL).
    const csv = await upload(`${header}\n55203\u00002534;N;G;S;R;e@x.fr\n`);
    expect(csv.status).toBe(201);
    const [faulty] = (await h.api('GET', `/campaigns/v1/campaigns/${csv.body.id}/rows`)).body.list;
    expect(faulty.faults).toEqual([{ column: 'siren', message: '55203\uFFFD2534 is not a SIREN (9 digits, Luhn)' }]);
  });

  it('of 20,000 rows are checked without holding up the other requests', async () => {
    const rows = Array.from(
      { length: 20_000 },
      (_, i) => `${makeSiren()};Société ${i};Élodie;Martin;Présidente;c${i}@example.fr`,
    );
    const { result, maxDelayMs, pingsBefore, slowestPingMs, medianPingMs } = await whilePinging(h, () =>
      upload(`${header}\n${rows.join('\n')}\n`),
    );
    expect(result.status).toBe(201);
    const seen = JSON.stringify({ pingsBefore, medianPingMs, slowestPingMs, maxDelayMs });
    // Pings answered all along: checked fifty rows at a time, written a hundred a statement. Checked and written in
    // one go, the rows held every other request for about two seconds (median ping 0.7 s). The embedded store (PGlite) runs on this process's event loop,
    // a statement at a time: tens of milliseconds, a few hundred when the machine is busy (the suite's other files).
    expect(pingsBefore, seen).toBeGreaterThan(10);
    expect(medianPingMs, seen).toBeLessThan(50);
    expect(slowestPingMs, seen).toBeLessThan(1000);
    expect(maxDelayMs, seen).toBeLessThan(1000);
  }, 120_000);
});
