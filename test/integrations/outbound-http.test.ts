// A call to an external system tries again within itself what cannot have been done (an answered 429 or 503 asking
// for at most a second) and, when it is idempotent, what got no answer; everything else is reported at once, for the
// step's retry policy. Against a real HTTP server scripted per request.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { send, TransportError, TRIES } from '../../integrations/outbound-http';

type Reply = { status: number; retryAfter?: string } | 'drop';
let script: Reply[] = [];
let seen: string[] = [];
let server: http.Server;
let url: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      seen.push(`${req.method} ${body}`);
      const reply = script.shift() ?? { status: 200 };
      if (reply === 'drop') return void req.socket.destroy();
      if (reply.retryAfter) res.setHeader('retry-after', reply.retryAfter);
      res.writeHead(reply.status).end(`answer ${reply.status}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
});
afterAll(() => new Promise((r) => server.close(r)));

async function call(replies: Reply[], o: { method?: string; idempotent?: boolean } = {}) {
  script = [...replies];
  seen = [];
  const t0 = Date.now();
  const outcome = await send(url, { method: o.method ?? 'POST', body: 'b', timeoutMs: 2_000, idempotent: o.idempotent })
    .then(async (a) => ({ status: a.status, text: await a.text() }))
    .catch((err: unknown) => err);
  return { outcome, requests: seen.length, ms: Date.now() - t0 };
}

it('an answered 503 or 429 is sent again, a write included, and the answer that ends it is returned', async () => {
  expect(await call([{ status: 503 }, { status: 429, retryAfter: '1' }])).toMatchObject({
    outcome: { status: 200, text: 'answer 200' },
    requests: 3,
  });
  expect(seen).toEqual(['POST b', 'POST b', 'POST b']);
});

it('gives up after TRIES requests and returns the last answer', async () => {
  const r = await call(Array(TRIES + 1).fill({ status: 503 }));
  expect(r).toMatchObject({ outcome: { status: 503 }, requests: TRIES });
  expect(r.ms).toBeLessThan(2_000); // short pauses between tries
});

it('a Retry-After longer than a second, another status, or one try asked for: answered at once', async () => {
  expect(await call([{ status: 429, retryAfter: '7' }])).toMatchObject({ outcome: { status: 429 }, requests: 1 });
  for (const status of [500, 502, 400, 422])
    expect(await call([{ status }])).toMatchObject({ outcome: { status }, requests: 1 });
  script = [{ status: 503 }];
  seen = [];
  expect((await send(url, { method: 'GET', timeoutMs: 2_000, tries: 1 })).status).toBe(503);
  expect(seen).toHaveLength(1);
});

it('no answer: sent again only when idempotent (by method, or said so)', async () => {
  const write = await call(['drop']);
  expect(write.outcome).toBeInstanceOf(TransportError);
  expect(write.requests).toBe(1);
  expect(await call(['drop'], { idempotent: true })).toMatchObject({ outcome: { status: 200 }, requests: 2 });
  expect(await call(['drop', 'drop'], { method: 'PUT' })).toMatchObject({ outcome: { status: 200 }, requests: 3 });
  const lost = await call(Array(TRIES).fill('drop'), { method: 'DELETE' });
  expect(lost.outcome).toBeInstanceOf(TransportError);
  expect(lost.requests).toBe(TRIES);
});
