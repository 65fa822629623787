// A separate worker process (bin/worker.ts, as in production) with TEMPORAL_METRICS_ADDRESS and
// WORKER_METRICS_PORT: the SDK's own metrics (task slots, polls) and the process's metrics, each on its listener.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

let worker: ChildProcess | undefined;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-worker-metrics-'));
afterAll(async () => {
  if (worker && worker.exitCode === null) {
    worker.kill('SIGTERM');
    await new Promise((r) => worker!.once('exit', r));
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const text = async (url: string) => {
  try {
    return await (await fetch(url)).text();
  } catch {
    return '';
  }
};

describe('worker process metrics', () => {
  it('serves the SDK metrics and its own on the configured listeners', { timeout: 120_000 }, async () => {
    const [sdkPort, ownPort] = [await freePort(), await freePort()];
    let output = '';
    const { DATABASE_URL: _, ...env } = process.env; // its own embedded store
    worker = spawn(process.execPath, ['--import', 'tsx', 'bin/worker.ts'], {
      env: {
        ...env,
        DATA_DIR: dataDir,
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        TEMPORAL_TASK_QUEUE: `metrics-${sdkPort}`,
        TEMPORAL_METRICS_ADDRESS: `127.0.0.1:${sdkPort}`,
        WORKER_METRICS_PORT: String(ownPort),
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    worker.stdout!.on('data', (d) => (output += d));
    worker.stderr!.on('data', (d) => (output += d));
    await expect
      .poll(() => text(`http://127.0.0.1:${sdkPort}/metrics`), { timeout: 90_000, interval: 500 })
      .toMatch(/temporal_worker_task_slots_available/);
    expect(await text(`http://127.0.0.1:${ownPort}/metrics`)).toContain('process_cpu_user_seconds_total');
    expect(worker.exitCode, output).toBeNull();
  });
});
