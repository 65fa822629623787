// What an operator reads: Prometheus metrics, one JSON log line per request with ids and no secrets, request ids;
// and what an integrator meets: per-key rate limits with Retry-After.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiDeps } from '../../api/app';
import { appWith as appWithConfig } from '../support/app-with';
import { startHarness, type Harness } from '../support/harness';
import { makeSiren, party } from '../../bin/stack/sample-parties';
import { jobWhen } from '../support/jobs';
import { startRegistration } from '../support/registration';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const appWith = (config: Partial<ApiDeps['config']>) => appWithConfig(h, config);

describe('metrics', () => {
  it('serves HTTP latency by route pattern, jobs by status, activity outcomes and process metrics', async () => {
    const entryId = crypto.randomUUID();
    await h.api('PUT', `/silo/v1/entries/${entryId}`, { data: party(makeSiren()) });
    await h.api('GET', `/silo/v1/entries/${entryId}`);
    const jobId = await startRegistration(h, entryId);
    await jobWhen(h, jobId, ['WAIT']);
    const { ref } = (await h.api('GET', `/silo/v1/entries/${entryId}/meta/approval-link`)).body;
    await fetch(`${h.baseUrl}/reg/${ref}/api/state`);
    await h.api('GET', `/silo/v1/entries/${crypto.randomUUID()}`); // a 404 thrown by the handler

    const res = await fetch(`${h.baseUrl}/metrics`);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toMatch(
      /http_request_duration_seconds_count\{method="GET",route="\/silo\/v1\/entries\/:id",status="200"\} \d+/,
    );
    expect(text).toMatch(
      /http_request_duration_seconds_bucket\{le="0.05",method="PUT",route="\/silo\/v1\/entries\/:id",status="200"\}/,
    );
    expect(text).toContain('route="/reg/:ref/api/state"');
    expect(text).toMatch(
      /http_request_duration_seconds_count\{method="GET",route="\/silo\/v1\/entries\/:id",status="404"\} \d+/,
    );
    expect(text).not.toContain(ref); // the wizard's credential never becomes a label
    expect(text).not.toContain(entryId); // nor do ids: label values stay bounded
    expect(text).toMatch(/^jobs\{status="WAIT"\} [1-9]\d*$/m);
    expect(text).toMatch(/^activity_executions_total\{provider="gov-fr.agreement.sign",outcome="ok"\} [1-9]\d*$/m);
    expect(text).toContain('process_cpu_user_seconds_total');
  });

  it('can require a token', async () => {
    const app = await appWith({ METRICS_TOKEN: 'a-long-enough-metrics-token' });
    try {
      expect((await fetch(`${app.url}/metrics`)).status).toBe(401);
      expect(
        (await fetch(`${app.url}/metrics`, { headers: { authorization: 'Bearer a-long-enough-metrics-token' } }))
          .status,
      ).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe('request logs and ids', () => {
  it('writes one JSON line per request with its id, route, status and workspace, and nothing secret', async () => {
    const app = await appWith({});
    try {
      const entryId = crypto.randomUUID();
      const res = await fetch(`${app.url}/silo/v1/entries/${entryId}?secret-ish=1`, {
        headers: { authorization: `Bearer ${h.apiKey}`, 'x-request-id': 'trace-42' },
      });
      expect(res.status).toBe(404);
      expect(res.headers.get('x-request-id')).toBe('trace-42');
      const generated = await fetch(`${app.url}/utils/v1/ping`, {
        headers: { 'x-request-id': 'not ok; \u00e9 injected' },
      });
      expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      await expect.poll(() => app.lines.length).toBeGreaterThanOrEqual(2);
      const line = app.lines.find((l) => (l.req as { id?: string })?.id === 'trace-42')!;
      expect(line).toMatchObject({
        level: 40,
        req: { id: 'trace-42', method: 'GET', path: `/silo/v1/entries/${entryId}` },
        res: { status: 404 },
        workspaceId: h.workspaceId,
      });
      expect(typeof line.responseTime).toBe('number');
      const all = JSON.stringify(app.lines);
      expect(all).not.toContain(h.apiKey);
      expect(all).not.toContain('authorization');
      expect(all).not.toContain('secret-ish');
    } finally {
      await app.close();
    }
  });
});

describe('rate limits', () => {
  it('answers 429 with Retry-After once a key has spent its requests, other keys unaffected', async () => {
    const app = await appWith({ RATE_LIMIT_PER_MINUTE: 3 });
    try {
      const other = await h.newKey(['entries:rw'], h.workspaceId);
      const get = (key: string) =>
        fetch(`${app.url}/silo/v1/entries?limit=1`, { headers: { authorization: `Bearer ${key}` } });
      for (let i = 0; i < 3; i++) expect((await get(h.apiKey)).status).toBe(200);
      const limited = await get(h.apiKey);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(limited.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(((await limited.json()) as { detail: string }).detail).toMatch(/3 requests per minute/);
      expect((await get(other)).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});
