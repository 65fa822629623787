// A worker process started while Temporal is unreachable (started before the server, or during a restart) waits
// for it and then runs, instead of exiting.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findTemporalCli } from '../../bin/stack/cli';
import { startDevServer, type DevServer } from '../../bin/stack/dev-server';
import { freshSchema } from '../../bin/stack/cluster';
import { spawnService, type ServiceProcess } from '../../bin/stack/service-process';
import { freePort } from '../../bin/stack/ports';

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

describe('worker started before Temporal', () => {
  it('keeps trying, then runs once the server answers', async () => {
    const { url, drop } = await freshSchema();
    cleanup.push(drop);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-wait-'));
    const address = `127.0.0.1:${await freePort()}`;
    let worker: ServiceProcess | undefined;
    const running = spawnService(
      'worker',
      'bin/worker.ts',
      { DATABASE_URL: url, DATA_DIR: dir, TEMPORAL_ADDRESS: address, LOG_LEVEL: 'info' },
      'worker running',
    ).then((w) => (worker = w));
    cleanup.push(async () => worker?.kill('SIGKILL'));
    await new Promise((r) => setTimeout(r, 4000)); // nothing listens yet: the worker must still be alive, waiting
    expect(worker).toBeUndefined();

    const server: DevServer = await startDevServer({
      cli: findTemporalCli(),
      address,
      uiPort: await freePort(),
      namespace: 'default',
      logFile: path.join(dir, 'temporal.log'),
    });
    cleanup.push(() => server.stop());
    await running;
    expect(worker!.output()).toContain('Temporal unreachable');
  }, 120_000);
});
