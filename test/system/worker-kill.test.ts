// Kill the worker (SIGKILL) while a registration is inside its directory step, with some of the party's lines
// created and others not yet, start another, and kill that one inside the Peppol step, with some participants at the
// SML and others not yet; a third finishes. The party states every level of invoicing address (SIREN, SIRET, SIRET +
// routing code, suffix): the registration completes with exactly one directory line of ours per address, the routing
// code created once, one SML participant and one Directory entry per address; its unregistration then leaves none.
// The worker runs as its own process, as in production, so the store is PostgreSQL (PGlite cannot be shared between
// processes).
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
import { signingDeps } from '../../api/signing-deps';
import { temporalWorkflowId } from '../../domain/jobs/jobs';
import { loadConfig, type Config } from '../../platform/config';
import { startSimulators, type Simulators } from '../../simulators';
import type { Db } from '../../platform/store/db';
import { SCOPES, createApiKey, createWorkspace } from '../../platform/store/workspaces';
import { createOperator } from '../../domain/operators/credentials';
import { operationFor } from '../../api/operations';
import { everyAddressLevel, makeSiren } from '../../bin/stack/sample-parties';
import { goneFaults, participantOf, registeredFaults, worldOf } from '../support/addresses';
import { eventually, freshDb, log, type Harness } from '../support/harness';
import { jobWhen } from '../support/jobs';
import { approve, newParty, signInApp, startRegistration, startUnregistration } from '../support/registration';
import { ONE_APPROVAL_POLICY } from '../../bin/stack/cluster';

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
      // A deployment of its own, whose build each worker makes current (the same build: each restart keeps it).
      TEMPORAL_DEPLOYMENT_NAME: config.TEMPORAL_TASK_QUEUE,
      WORKER_MAKE_CURRENT: 'true',
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
    DECISION_POLICY_FILE: ONE_APPROVAL_POLICY, // its company is made up: four eyes would name it
  });
  const box = dataBoxFromConfig(config);
  connection = await Connection.connect({ address: inject('temporalAddress') });
  const temporal = new Client({ connection });
  const signing = signingDeps({ db, log, temporal, config, box, sealKey: testSealKey() });
  server = await new Promise((resolve) => {
    const s = createApp({ db, log, temporal, config, box, sealKey: testSealKey(), signing }).listen(
      0,
      '127.0.0.1',
      () => resolve(s),
    );
  });
  const ws = await createWorkspace(db, 'kill');
  const { secret } = await createApiKey(db, ws.id, { name: 'kill', scopes: [...SCOPES] });
  const { credential: operator } = await createOperator(db, null, { name: 'Kill operator', roles: ['decide'] });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  h = {
    db,
    box,
    config,
    signing,
    sims,
    client: temporal,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    baseUrl,
    workspaceId: ws.id,
    apiKey: secret,
    operator,
    secondOperator: operator,
    newKey: () => {
      throw new Error('unused');
    },
    newOperator: () => {
      throw new Error('unused');
    },
    async api(method, p, body, key = operationFor(method, p)?.operator ? operator : secret) {
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

/** The attempt on which an activity of the job's workflow started (its first scheduling). */
async function startedAttempt(jobId: string, activity: string): Promise<number | undefined> {
  const history = await h.client.workflow.getHandle(temporalWorkflowId(jobId)).fetchHistory();
  const events = history.events ?? [];
  const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === activity)!;
  const started = events.find(
    (e) => String(e.activityTaskStartedEventAttributes?.scheduledEventId) === String(scheduled.eventId),
  );
  return started?.activityTaskStartedEventAttributes?.attempt ?? undefined;
}

async function kill(worker: ChildProcess): Promise<void> {
  const exited = new Promise((r) => worker.once('exit', r));
  worker.kill('SIGKILL');
  await exited;
}

describe('workers killed mid-registration', () => {
  it('new workers finish the registration of every address, each once; its unregistration leaves none', async () => {
    const first = await startWorker();
    const siren = makeSiren();
    const addresses = everyAddressLevel(siren);
    const party = { siren, addresses };
    const entryId = await newParty(h, siren);
    const meta = await h.api('PUT', `/silo/v1/entries/${entryId}/meta/fr-invoicing-addresses`, {
      value: addresses.value,
    });
    expect(meta.status, JSON.stringify(meta.body)).toBe(200);
    const jobId = await startRegistration(h, entryId);
    await jobWhen(h, jobId, ['WAIT']);
    await signInApp(h, entryId);
    await expect
      .poll(async () => (await h.api('GET', `/silo/v1/entries/${entryId}`)).body.state, { timeout: 15_000 })
      .toBe('submitted');

    // Slow directory: the first worker dies once some of the party's lines are ours, before all are.
    const ourLines = () =>
      sims.annuaire.lines().filter((l) => l.siren === siren && l.matriculePlateforme === config.PA_MATRICULE).length;
    sims.annuaire.setFaults({ latencyMs: 1500 });
    await approve(h, entryId);
    await eventually(async () => ourLines() > 0, 30_000, 'the first directory line of ours');
    const linesAtKill = ourLines();
    await kill(first);
    sims.annuaire.setFaults(undefined);
    expect(linesAtKill).toBeLessThan(addresses.ids.length);

    // Slow SML: the second worker finishes the directory step, then dies once some participants are at the SML,
    // before all are.
    const atSml = () => worldOf(sims, config).sml.filter((p) => addresses.ids.map(participantOf).includes(p)).length;
    sims.sml.setFaults({ latencyMs: 1500 });
    const second = await startWorker();
    await eventually(async () => atSml() > 0, 60_000, 'the first SML participant');
    const participantsAtKill = atSml();
    await kill(second);
    sims.sml.setFaults(undefined);
    expect(participantsAtKill).toBeLessThan(addresses.ids.length);

    console.error(
      `[worker-kill] killed with ${linesAtKill} of ${addresses.ids.length} directory lines created, then with ${participantsAtKill} of ${addresses.ids.length} participants at the SML`,
    );
    await startWorker();
    const job = await jobWhen(h, jobId, ['OK', 'ERR'], 90_000);
    expect(job.status, JSON.stringify(job.faults)).toBe('OK');
    expect((await h.api('GET', `/silo/v1/entries/${entryId}`)).body.state).toBe('registered');
    // Each address once: one line of ours ever created (in force), the routing code once, SML and Directory.
    expect(registeredFaults(worldOf(sims, config), party)).toEqual([]);

    // The kills did land inside the steps: each completed on a later attempt, on a later worker.
    expect(await startedAttempt(jobId, 'gov-fr.directory.register')).toBeGreaterThanOrEqual(2);
    expect(await startedAttempt(jobId, 'peppol.register')).toBeGreaterThanOrEqual(2);

    // Unregistered: no line of ours in force, the SIREN back on the fictive platform, nothing at the SML or in the
    // Directory, our SMP's records disabled.
    const unreg = await jobWhen(h, await startUnregistration(h, entryId), ['OK', 'ERR'], 60_000);
    expect(unreg.status, JSON.stringify(unreg.faults)).toBe('OK');
    expect(goneFaults(worldOf(sims, config), party, 'each address once')).toEqual([]);
    const { rows } = await db.query<{ participant_id: string }>(
      'SELECT participant_id FROM peppol_participants WHERE entry_id = $1 AND enabled',
      [entryId],
    );
    expect(rows).toEqual([]);
  }, 240_000);
});
