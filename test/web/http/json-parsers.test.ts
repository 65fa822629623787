// The API's JSON parsers against shapes that cost memory or hide structure, on a real HTTP server with the parsers
// as the API mounts them (web/http/bounded-json.ts, web/http/upload-json.ts), each answered by the error handler.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedJson } from '../../../web/http/bounded-json';
import { uploadJson } from '../../../web/http/upload-json';
import { errorHandler } from '../../../web/http/problem';
import { log } from '../../support/harness';

let server: http.Server;
let base: string;
beforeAll(async () => {
  const app = express();
  app.post('/small', boundedJson({ limit: '16kb', maxValues: 256 }), (req, res) => void res.json({ got: req.body }));
  app.post('/upload', uploadJson, (req, res) => void res.json({ fields: Object.keys(req.body ?? {}) }));
  app.use(errorHandler(log));
  server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const post = (path: string, body: Buffer, headers: Record<string, string>) =>
  fetch(base + path, { method: 'POST', body, headers });

describe('a JSON body', () => {
  it('in UTF-16 is refused (415): its bytes would hide structure from the count of values', async () => {
    // U+5C41's low byte is a backslash: read as UTF-8, the quote after it would look escaped.
    const text = `["\u5c41",${'1,'.repeat(2000)}"a"]`;
    const res = await post('/small', Buffer.from(text, 'utf16le'), {
      'content-type': 'application/json; charset=utf-16le',
    });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { code: string }).code).toBe('unsupported-media-type');
    const utf8 = await post('/small', Buffer.from('{"a":1}'), { 'content-type': 'application/json; charset=UTF-8' });
    expect(utf8.status).toBe(200);
  });

  it('of an upload made of empty strings is refused at once, without a span per string (gzip: 6 MB from a few KB)', async () => {
    const bomb = zlib.gzipSync(Buffer.from(`{"data":${'""'.repeat(3_000_000)}}`));
    expect(bomb.length).toBeLessThan(20_000);
    const heapBefore = process.memoryUsage().heapUsed;
    const res = await post('/upload', bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(res.status).toBe(400);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(100 * 1024 * 1024);
    const ok = await post('/upload', Buffer.from('{"view":"front","data":"AAAA"}'), {
      'content-type': 'application/json',
    });
    expect([ok.status, await ok.json()]).toEqual([200, { fields: ['view', 'data'] }]);
  });
});
