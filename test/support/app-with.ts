// Our API app on its own port, over a harness's store and Temporal, with some configuration changed and its JSON
// log lines captured: for what depends on the configuration (limits, proxies, metrics) or shows in the logs.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createApp, type ApiDeps } from '../../api/app';
import type { Harness } from './harness';
import { testSealKey } from './seal-key';

export interface AppWith {
  url: string;
  /** The app's log lines, parsed, in order. */
  lines: Record<string, unknown>[];
  close: () => Promise<unknown>;
}

export async function appWith(h: Harness, config: Partial<ApiDeps['config']>): Promise<AppWith> {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write: (chunk, _enc, cb) => {
      for (const line of String(chunk).trim().split('\n')) lines.push(JSON.parse(line));
      cb();
    },
  });
  const app = createApp({
    db: h.db,
    log: pino({ level: 'info' }, sink),
    temporal: h.client,
    config: { ...h.config, ...config },
    box: h.box,
    sealKey: testSealKey(),
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    lines,
    close: () => new Promise((r) => server.close(r)),
  };
}
