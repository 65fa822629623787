// Slow senders: a request whose headers or body do not arrive in time is answered 408 (a problem) and its connection
// closed, on a real HTTP server with the hook the API's servers get (bin/api.ts, bin/start.ts, the test harness).
// The limits are 30 s and 15 s; here they are shortened so that the test takes a second.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, answerMalformedRequests } from '../../../web/http/malformed-requests';

const REQUEST_MS = 800;
const HEADERS_MS = 400;

let server: http.Server;
let port: number;
beforeAll(async () => {
  const app = express();
  app.post('/echo', express.json(), (req, res) => void res.json({ got: req.body }));
  // A handler slower than the request timeout: only the request's arrival is timed, not the answer.
  app.get('/slow', (_req, res) => void setTimeout(() => res.json({ ok: true }), REQUEST_MS * 2));
  server = http.createServer(app);
  answerMalformedRequests(server, { requestTimeoutMs: REQUEST_MS, headersTimeoutMs: HEADERS_MS });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Sends `head`, then one byte of `trickle` every 50 ms until the server answers or closes; what it answered, when. */
function slowSender(head: string, trickle: string): Promise<{ raw: string; ms: number; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1', () => socket.write(head));
    let raw = '';
    let i = 0;
    const timer = setInterval(() => {
      if (socket.writable && i < trickle.length) socket.write(trickle[i++]!);
    }, 50);
    socket.on('data', (d) => (raw += d.toString()));
    socket.on('error', () => undefined); // a reset after the answer: the answer is what counts
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ raw, ms: Date.now() - started, closed: true });
    });
    setTimeout(() => {
      clearInterval(timer);
      socket.destroy();
      reject(new Error(`no answer within 10 s: ${raw}`));
    }, 10_000).unref();
  });
}

const problemOf = (raw: string) => JSON.parse(raw.split('\r\n\r\n')[1]!) as Record<string, unknown>;

describe('requests that arrive too slowly', () => {
  it('are given 30 s with their body, 15 s for their headers, checked every second at most', () => {
    expect(REQUEST_TIMEOUT_MS).toBe(30_000);
    expect(HEADERS_TIMEOUT_MS).toBe(15_000);
    const s = http.createServer();
    answerMalformedRequests(s);
    expect(s.requestTimeout).toBe(30_000); // Node's default: 300 s
    expect(s.headersTimeout).toBe(15_000);
    expect((s as { connectionsCheckingInterval?: number }).connectionsCheckingInterval).toBeLessThanOrEqual(1000);
  });

  it('a body sent slower than the request timeout allows is dropped with 408, a problem, and the connection closed', async () => {
    const body = JSON.stringify({ a: 'x'.repeat(200) }); // 200 bytes at 20 a second: 10 s, far past the limit
    const r = await slowSender(
      `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      body,
    );
    expect(r.raw).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(r.raw).toMatch(/\r\ncontent-type: application\/problem\+json\r\n/);
    expect(r.raw).toMatch(/\r\nconnection: close\r\n/);
    expect(problemOf(r.raw)).toMatchObject({
      status: 408,
      title: 'Request Timeout',
      code: 'request-timeout',
      detail: expect.stringMatching(/all of it within 0\.8 s/),
    });
    expect(r.closed).toBe(true);
    expect(r.ms).toBeGreaterThanOrEqual(REQUEST_MS - 50);
    expect(r.ms).toBeLessThan(REQUEST_MS + 1500);
  });

  it('headers sent slower than the headers timeout allows are dropped with 408', async () => {
    const r = await slowSender('GET /slow HTTP/1.1\r\n', 'Host: x\r\nX-Slow: ' + 'y'.repeat(200));
    expect(r.raw).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(problemOf(r.raw)).toMatchObject({ status: 408, code: 'request-timeout' });
    expect(r.ms).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    expect(r.ms).toBeLessThan(REQUEST_MS + 1000);
  });

  it('a request that arrived in time is answered, however long its handler takes, and the server goes on', async () => {
    const base = `http://127.0.0.1:${port}`;
    const slow = await fetch(`${base}/slow`);
    expect([slow.status, await slow.json()]).toEqual([200, { ok: true }]);
    const echo = await fetch(`${base}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ a: 1 }),
    });
    expect([echo.status, await echo.json()]).toEqual([200, { got: { a: 1 } }]);
  });
});
