// Kill the worker (SIGKILL) while a registration is inside its directory step, start another: the registration
// completes with exactly one directory line and one SML entry. The worker runs as its own process, as in
// production, so the store is PostgreSQL (PGlite cannot be shared between processes).
import { testSealKey } from '../support/seal-key';
import { dataBoxFromConfig } from '../../platform/crypto/data-box';
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createApp } from '../../api/app';
import { temporalWorkflowId } from '../../domain/jobs/jobs';
import { loadConfig, type Config } from '../../platform/config';
import { startSimulators, type Simulators } from '../../simulators';
import type { Db } from '../../platform/store/db';
import { SCOPES, createApiKey, createWorkspace } from '../../platform/store/workspaces';
import { makeSiren } from '../../bin/stack/sample-parties';
import { eventually, freshDb, log, type Harness } from '../support/harness';
import { jobWhen } from '../support/jobs';
import { approve, linesInForce, newParty, signInApp, smlHas, startRegistration } from '../support/registration';

const repo = path.join(__dirname, '..', '..');
let db: Db, drop: () => Promise<void>, dbUrl: string;
let sims: Simulators, config: Config, server: Server, connection: Connection;
let h: Harness; // the subset of the harness the registration helpers use
const workers: ChildProcess[] = [];

function startWorker(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/worker.ts'], {
    cwd: repo,
    env: {
      ...process.env,
      ...sims.env,
      DATABASE_URL: dbUrl,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: config.TEMPORAL_TASK_QUEUE,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  workers.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d;
      if (out.includes('worker running')) resolve(child);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`worker exited (${code}) before running:\n${out}`)));
  });
}

beforeAll(async () => {
  if (!process.env.TEST_DATABASE_URL)
    throw new Error('this test needs PostgreSQL: set TEST_DATABASE_URL (scripts/test.sh finds the local server)');
  ({ db, drop, url: dbUrl } = (await freshDb('postgres')) as { db: Db; drop: () => Promise<void>; url: string });
  sims = await startSimulators({ host: '127.0.0.1' });
  config = loadConfig({
    ...sims.env,
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'pa-kill-')),
    DATA_ENCRYPTION_KEYS: `kill:${crypto.randomBytes(32).toString('base64')}`,
    TEMPORAL_TASK_QUEUE: `kill-${crypto.randomUUID()}`,
    APPROVAL_DEADLINE: '1h',
  });
  const box = dataBoxFromConfig(config);
  connection = await Connection.connect({ address: inject('temporalAddress') });
  const temporal = new Client({ connection });
  server = await new Promise((resolve) => {
    const s = createApp({ db, log, temporal, config, box, sealKey: testSealKey() }).listen(0, '127.0.0.1', () =>
      resolve(s),
    );
  });
  const ws = await createWorkspace(db, 'kill');
  const { secret } = await createApiKey(db, ws.id, { name: 'kill', scopes: [...SCOPES] });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  h = {
    db,
    box,
    config,
    sims,
    client: temporal,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    baseUrl,
    workspaceId: ws.id,
    apiKey: secret,
    newKey: () => {
      throw new Error('unused');
    },
    async api(method, p, body, key = secret) {
      const res = await fetch(baseUrl + p, {
        method,
        headers: {
          ...(key && { authorization: `Bearer ${key}` }),
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
    },
    close: async () => undefined,
  };
});

afterAll(async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  if (server) await new Promise((r) => server.close(r));
  await connection?.close();
  await sims?.close();
  await drop?.();
});

describe('worker killed mid-registration', () => {
  it('a new worker finishes the registration, with one directory line and one SML entry', async () => {
    const first = await startWorker();
    const siren = makeSiren();
    const entryId = await newParty(h, siren);
    const jobId = await startRegistration(h, entryId);
    await jobWhen(h, jobId, ['WAIT']);
    await signInApp(h, entryId);
    await expect
      .poll(async () => (await h.api('GET', `/silo/v1/entries/${entryId}`)).body.state, { timeout: 15_000 })
      .toBe('submitted');

    // Slow directory: the directory step is certainly in flight when the worker dies.
    sims.annuaire.setFaults({ latencyMs: 1500 });
    await approve(h, entryId);
    await eventually(
      async () => {
        const job = (await h.api('GET', `/transform/v1/jobs/${jobId}`)).body;
        const step = job.intents.find((i: any) => i.provider === 'gov-fr.directory.register');
        return step && !step.completed;
      },
      20_000,
      'the directory step to start',
    );
    await new Promise((r) => setTimeout(r, 1000)); // inside the Annuaire calls
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    sims.annuaire.setFaults(undefined);

    await startWorker();
    const job = await jobWhen(h, jobId, ['OK', 'ERR'], 90_000);
    expect(job.status, JSON.stringify(job.faults)).toBe('OK');
    expect((await h.api('GET', `/silo/v1/entries/${entryId}`)).body.state).toBe('registered');
    expect(linesInForce(h, siren).map((l) => l.matriculePlateforme)).toEqual([config.PA_MATRICULE]);
    expect(h.sims.sml.participants(config.SMP_ID).filter((p) => p.endsWith(`0225:${siren}`))).toHaveLength(1);
    expect(smlHas(h, siren)).toBe(true);

    // The kill did land inside the step: the activity completed on a later attempt, on the new worker.
    const history = await h.client.workflow.getHandle(temporalWorkflowId(jobId)).fetchHistory();
    const events = history.events ?? [];
    const scheduled = events.find(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'gov-fr.directory.register',
    )!;
    const started = events.find(
      (e) => String(e.activityTaskStartedEventAttributes?.scheduledEventId) === String(scheduled.eventId),
    );
    expect(started?.activityTaskStartedEventAttributes?.attempt).toBeGreaterThanOrEqual(2);
  }, 180_000);
});
