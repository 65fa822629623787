// The production topology, run for real (issue 24): Temporal's own server 1.29.1 on PostgreSQL behind mutual TLS
// (bin/stack/temporal-server.ts), two API processes and two workers started from the production entry points
// (bin/api.ts, bin/worker.ts) with production settings — NODE_ENV=production, DATABASE_URL, an encryption key ring,
// seal/SMP/AP keys from files, a metrics token, https:// SMP and access-point addresses, the four TEMPORAL_TLS_*
// files — and the simulators. No embedded default is left: no PGlite, no dev server, no key the processes make up.
//
// A process without a client certificate is refused by the server and says why. A batch of registrations (every third
// party with every level of invoicing address) goes to `registered`, requests alternating between the APIs; the
// parked ones are found in the server's visibility by PartyState, Siren and JobStatus; a part is then unregistered
// to `void`. Meanwhile: the Temporal server is killed (SIGKILL) and started again — while it is down the API answers
// 503 with a reason within seconds, never hangs, and a job posted then is kept and started later —; the service's
// PostgreSQL connections are terminated (pg_terminate_backend) twice, and no process may die of it; the workers
// are restarted one after the other (SIGTERM, a new one, then the other). At the end every job is OK, every side
// effect happened exactly once, and nothing is left running in Temporal.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { currentBuild } from '../../worker/versioning';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, startCluster, type ApiJson, type Cluster } from '../../bin/stack/cluster';
import { spawnService, type ServiceProcess } from '../../bin/stack/service-process';
import { freePort } from '../../bin/stack/ports';
import {
  createAndStart,
  jobCounts,
  pool,
  signAndConfirm,
  sirens,
  startUnregistration,
  waitUntil,
  type Onboarding,
} from '../../bin/stack/onboard';
import { everyAddressLevel, party } from '../../bin/stack/sample-parties';
import { startTemporalServer, type TemporalServer } from '../../bin/stack/temporal-server';
import { oncePerEntryFaults } from '../support/once-per-entry';
import { REGISTRATION_WORKFLOW_ID } from '../../domain/jobs/builtins';
import { temporalWorkflowId } from '../../domain/jobs/jobs';
import { generateSelfSigned } from '../../platform/crypto/dev-certificates';
import { goneFaults, participantOf, registeredFaults, worldOf } from '../support/addresses';
import { readHistory } from '../support/histories';

const N = 16;
/** Every third party states every level of invoicing address (SIREN, SIRET, SIRET + routing code, suffix). */
const several = (i: number) => i % 3 === 0;
/** Unregistered once all are registered: three of those with several addresses, three with the SIREN alone. */
const leaves = (i: number) => (several(i) ? i % 2 === 0 : i % 4 === 1);
/** Its registration is posted while the Temporal server is down. */
const LATE = N - 1;
/** Approved before the Temporal server goes down; the others (but LATE) while it is down. */
const APPROVED_BEFORE = N / 2;
/**
 * How long the API may take to answer while Temporal is down. It gives Temporal 5 s, which the SDK's native client
 * stretches by its own retries of an unreachable server (10 s in all, its retry budget): measured 5.5 to 10 s.
 */
const DOWN_ANSWER_BOUND_MS = 12_000;
/** Any answer slower than this is a hang (the approvals retried while the server starts again included). */
const HANG_BOUND_MS = 20_000;
/** The workers' build after the versioned deploy of step 5 (the first is the workflow bundle's hash). */
const NEXT_BUILD = 'topology-next';
const PUBLIC = 'https://pa.test.example';
const postgresUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const say = (msg: string) => console.error(`[production ${new Date().toISOString().slice(11, 19)}] ${msg}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const api = (i: number) => i % 2; // alternate between the two API processes
const alive = (p: ServiceProcess) => p.child.exitCode === null && p.child.signalCode === null;

let server: TemporalServer | undefined;
let cluster: Cluster | undefined;
let connection: Connection | undefined;
let keysDir: string | undefined;
const strays: ServiceProcess[] = []; // the processes started outside the cluster, killed in afterAll
let keys: { smpCertPem: string; apCertPem: string };

/** Production keys, mounted as files: the seal, the SMP's signing pair, the access point's certificate. */
function writeKeys(dir: string) {
  const files: Record<string, string> = {};
  const pems: Record<string, string> = {};
  for (const [name, cn] of [
    ['SEAL', 'PA test (mandate seal)'],
    ['SMP', 'PA test SMP'],
    ['AP', 'PA test access point'],
  ] as const) {
    const pair = generateSelfSigned(cn);
    fs.writeFileSync((files[`${name}_KEY_FILE`] = path.join(dir, `${name.toLowerCase()}.key.pem`)), pair.keyPem, {
      mode: 0o600,
    });
    fs.writeFileSync((files[`${name}_CERT_FILE`] = path.join(dir, `${name.toLowerCase()}.cert.pem`)), pair.certPem);
    pems[name] = pair.certPem;
  }
  delete files.AP_KEY_FILE; // the access point's key is the AS4 gateway's, not ours
  return { env: files, smpCertPem: pems.SMP!, apCertPem: pems.AP! };
}

beforeAll(async () => {
  const t0 = Date.now();
  server = await startTemporalServer({ postgresUrl, tls: true, maxConns: { persistence: 8, visibility: 4 } });
  const tls = server.tls!;
  keysDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-production-keys-'));
  const written = writeKeys(keysDir);
  keys = written;
  cluster = await startCluster({
    temporalAddress: server.address,
    apis: 2,
    workers: 2,
    env: {
      NODE_ENV: 'production',
      METRICS_TOKEN: crypto.randomBytes(24).toString('base64url'),
      SMP_PUBLIC_URL: `${PUBLIC}/smp`,
      AP_ENDPOINT_URL: `${PUBLIC}/as4`,
      TEMPORAL_NAMESPACE: server.namespace,
      TEMPORAL_TLS_CA_FILE: tls.caFile,
      TEMPORAL_TLS_CERT_FILE: tls.clientCertFile,
      TEMPORAL_TLS_KEY_FILE: tls.clientKeyFile,
      TEMPORAL_TLS_SERVER_NAME: tls.serverName,
      ...written.env,
    },
  });
  connection = await Connection.connect({ ...server.connectionOptions, connectTimeout: 10_000 });
  say(
    `Temporal server ${server.address} (TLS) and 2 APIs + 2 workers up in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
}, 240_000);

afterAll(async () => {
  await Promise.all(strays.map((p) => p.kill('SIGKILL')));
  await connection?.close().catch(() => undefined);
  await cluster?.close();
  await server?.stop();
  if (keysDir) fs.rmSync(keysDir, { recursive: true, force: true });
}, 120_000);

const c = () => cluster!;
const temporalClient = () => new Client({ connection: connection!, namespace: server!.namespace });
const count = async (sql: string) => Number((await c().db.query<{ n: string }>(sql)).rows[0]!.n);
const rowsBy = async (sql: string) =>
  new Map((await c().db.query<{ k: string; v: unknown }>(sql)).rows.map((r) => [r.k, r.v]));
const addressIds = (o: Onboarding) => o.addresses?.ids ?? [o.siren];

/** Waits until `done` holds for the job counts; fails at once if a job failed. */
async function jobsUntil(done: (n: Record<string, number>) => boolean, what: string, timeoutMs: number) {
  await waitUntil(
    async () => {
      const n = await jobCounts(c());
      if (n.ERR) {
        const { rows } = await c().db.query(`SELECT id, faults FROM jobs WHERE status = 'ERR'`);
        throw new Error(`${n.ERR} job(s) failed while waiting for ${what}: ${JSON.stringify(rows).slice(0, 1500)}`);
      }
      return done(n);
    },
    timeoutMs,
    what,
    1_000,
  );
}

/** The workflow ids a visibility query finds (eventually consistent: polled until `expected` or 30 s). */
async function listed(query: string, expected: string[]): Promise<string[]> {
  const want = JSON.stringify([...expected].sort());
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ids: string[] = [];
    for await (const wf of temporalClient().workflow.list({ query })) ids.push(wf.workflowId);
    ids.sort();
    if (JSON.stringify(ids) === want || Date.now() > deadline) return ids;
    await sleep(500);
  }
}

/**
 * Terminates the service's PostgreSQL connections (both APIs, the workers, the APIs' LISTEN connections): those
 * with the cluster's application_name (its schema's name, bin/stack/cluster.ts freshSchema) in its database. The
 * Temporal server's connections are in its own databases, other suites' under other names, and this process's
 * `cluster.db` has none: all untouched.
 */
async function killServiceConnections(): Promise<number> {
  const url = new URL(c().dbUrl);
  const appName = url.searchParams.get('application_name');
  if (!appName) throw new Error('the cluster URL names no application_name: its connections cannot be told apart');
  url.searchParams.set('application_name', 'production-topology-test');
  const admin = new pg.Client({ connectionString: url.toString() });
  admin.on('error', () => undefined);
  await admin.connect();
  try {
    const { rows } = await admin.query<{ killed: boolean }>(
      `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = $1 AND pid <> pg_backend_pid()`,
      [appName],
    );
    return rows.filter((r) => r.killed).length;
  } finally {
    await admin.end();
  }
}

const retired = new Set<ServiceProcess>(); // workers stopped on purpose (the rolling restart)

/** What a crashed process printed about its end: the error and its first frames (not the objects Node dumps). */
const crashOf = (output: string) =>
  output
    .split('\n')
    .filter((l) => /Unhandled|Uncaught|Emitted 'error'|^\w*[eE]rror: |^\s+at /.test(l))
    .filter((l) => !/^\s+at .*(\(node:|pg-protocol)/.test(l))
    .slice(0, 10)
    .join('\n') || output.slice(-1500);

/** Every service process is still running: a lost database connection must not take one down. */
async function survivedConnectionKill(what: string) {
  await sleep(2_000); // an unhandled 'error' of a pooled connection kills a process at once
  const dead = [...c().apis, ...c().workers.filter((w) => !retired.has(w))].filter((p) => !alive(p));
  expect(
    dead.map((p) => `${p.name} exited (${p.child.exitCode ?? p.child.signalCode}): ${crashOf(p.output())}`),
    `service processes died when their PostgreSQL connections were terminated (${what})`,
  ).toEqual([]);
  // And serve again: each API ready (database and Temporal) within seconds.
  for (const i of [0, 1]) {
    await waitUntil(
      async () => (await callApi(c(), 'GET', '/utils/v1/health/ready', undefined, i)).status === 200,
      15_000,
      `API ${i + 1} to be ready again after its connections were terminated (${what})`,
    );
  }
}

interface Answer {
  what: string;
  status: number;
  ms: number;
  contentType: string | null;
  body: ApiJson;
}

/** One API call, timed; a call still unanswered after 30 s is reported as a hang (status 0). */
async function timed(what: string, method: string, p: string, body: unknown, apiIndex: number): Promise<Answer> {
  const t = Date.now();
  try {
    const res = await fetch(c().apiUrls[apiIndex]! + p, {
      method,
      headers: {
        authorization: `Bearer ${p.endsWith('/decision') ? c().operator : c().apiKey}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let parsed: ApiJson = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { what, status: res.status, ms: Date.now() - t, contentType: res.headers.get('content-type'), body: parsed };
  } catch (err) {
    return { what, status: 0, ms: Date.now() - t, contentType: null, body: (err as Error).message };
  }
}

describe(`the production topology: the real Temporal server over mutual TLS, 2 APIs and 2 workers, ${N} parties`, () => {
  it('refuses to run without a client certificate (saying why), and with an http:// SMP address in production', async () => {
    const t0 = Date.now();
    const port = await freePort();
    // The CA and the server name, but no certificate of ours: TLS without client authentication.
    const noCertificate = {
      ...c().env,
      TEMPORAL_TLS_CERT_FILE: '',
      TEMPORAL_TLS_KEY_FILE: '',
      API_PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    };
    const [worker, apiProcess] = await Promise.all([
      spawnService('worker-without-certificate', 'bin/worker.ts', noCertificate, 'Temporal unreachable'),
      spawnService('api-without-certificate', 'bin/api.ts', noCertificate, 'Temporal unreachable'),
    ]);
    strays.push(worker, apiProcess);
    // The http:// SMP address: production refuses it before anything else, naming the setting.
    const insecure = await spawnService(
      'api-with-http-smp',
      'bin/api.ts',
      { ...c().env, SMP_PUBLIC_URL: 'http://pa.test.example/smp', API_PORT: String(await freePort()) },
      'API listening',
    ).then(
      (p) => (strays.push(p), 'it started'),
      (err: Error) => err.message,
    );
    expect(insecure).toMatch(/exited \(1\)/);
    expect(insecure).toContain('SMP_PUBLIC_URL is http://pa.test.example/smp');
    expect(insecure).toContain('https://');

    await sleep(1_000); // a process let in would report "worker running" / "API listening" by now
    for (const p of [worker, apiProcess]) {
      const reason = /Temporal unreachable \(([^)]+)\)/.exec(p.output())?.[1];
      say(`${p.name}: refused (${reason})`);
      expect(reason, p.output().slice(-2000)).toBeTruthy();
      expect(p.output()).not.toMatch(/worker running|API listening/);
    }
    // The API without Temporal does not listen: a load balancer's probe is refused at once, it does not hang.
    const t = Date.now();
    const probe = await fetch(`http://127.0.0.1:${port}/utils/v1/health/ready`, {
      signal: AbortSignal.timeout(5_000),
    }).then(
      (r) => `answered ${r.status}`,
      (err: Error) => (err.cause as { code?: string } | undefined)?.code ?? err.name,
    );
    expect(probe).toBe('ECONNREFUSED');
    expect(Date.now() - t).toBeLessThan(1_000);
    await Promise.all([worker.kill('SIGKILL'), apiProcess.kill('SIGKILL')]);
    say(`refusals checked in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }, 60_000);

  it('registers and unregisters the batch exactly once through a Temporal crash, terminated PostgreSQL connections and a rolling restart of the workers', async () => {
    const t0 = Date.now();
    const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(0)} s`;
    const parties = sirens(N);
    const client = temporalClient();

    // 1. Every party but LATE registered, requests alternating between the APIs; LATE's entry only recorded.
    const onboardings: Onboarding[] = await pool(parties, 8, async (siren, i) => {
      if (i !== LATE) return createAndStart(c(), siren, api(i), several(i) ? everyAddressLevel(siren) : undefined);
      const entryId = crypto.randomUUID();
      const put = await callApi(c(), 'PUT', `/silo/v1/entries/${entryId}`, { data: party(siren) }, api(i));
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      return { siren, entryId };
    });
    const early = onboardings.filter((_, i) => i !== LATE);
    await jobsUntil((n) => n.WAIT === N - 1, `${N - 1} registrations to wait for their signer`, 90_000);
    await pool(early, 8, (o, i) => signAndConfirm(c(), o.entryId, api(i + 1)));
    await waitUntil(
      async () => (await count(`SELECT count(*) AS n FROM entries WHERE state = 'submitted'`)) === N - 1,
      60_000,
      `${N - 1} submissions`,
    );
    say(`${N - 1} parked and submitted after ${elapsed()}`);

    // 2. The parked registrations, as an operator finds them in the server's visibility: awaiting a decision by
    // PartyState and JobStatus (all of them, nothing else), one by its SIREN.
    const parkedIds = early.map((o) => temporalWorkflowId(o.jobId!));
    expect(await listed('PartyState = "submitted" AND JobStatus = "WAIT"', parkedIds)).toEqual([...parkedIds].sort());
    expect(await listed('PartyState = "processing"', [])).toEqual([]);
    const one = early[3]!;
    expect(await listed(`Siren = "${one.siren}" AND JobStatus = "WAIT"`, [temporalWorkflowId(one.jobId!)])).toEqual([
      temporalWorkflowId(one.jobId!),
    ]);
    expect(await listed(`Siren = "${parties[LATE]}"`, [])).toEqual([]);

    // 3. Half approved; then the Temporal server crashes (SIGKILL) with their directory and Peppol steps under way.
    await pool(early.slice(0, APPROVED_BEFORE), 8, async (o, i) => {
      const r = await callApi(c(), 'POST', `/apps/gov-fr/v1/entry/${o.entryId}/decision`, { approved: true }, api(i));
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    });
    const pid = server!.pid;
    process.kill(pid, 'SIGKILL');
    await waitUntil(
      async () => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      },
      10_000,
      'the Temporal server to die',
      100,
    );
    const downAt = Date.now();
    const unfinishedAtCrash = N - 1 - ((await jobCounts(c())).OK ?? 0);
    say(`Temporal server killed after ${elapsed()} with ${unfinishedAtCrash} registrations unfinished`);

    // While it is down: readiness on both APIs, the other approvals (retried on 503 every second, as an
    // integrator does), and LATE's registration posted.
    const answers: Answer[] = [];
    const ready = Promise.all(
      [0, 1].map((i) => timed(`ready on API ${i + 1}`, 'GET', '/utils/v1/health/ready', undefined, i)),
    );
    const lateJob = timed(
      'registration posted',
      'POST',
      '/transform/v1/jobs',
      { workflow_id: REGISTRATION_WORKFLOW_ID, silo_entry_id: onboardings[LATE]!.entryId },
      api(LATE),
    );
    let firstAnswers = 0;
    const rest = early.slice(APPROVED_BEFORE);
    const approving = pool(rest, rest.length, async (o, i) => {
      for (let attempt = 1; ; attempt++) {
        const a = await timed(
          'decision',
          'POST',
          `/apps/gov-fr/v1/entry/${o.entryId}/decision`,
          { approved: true },
          api(i),
        );
        answers.push(a);
        if (attempt === 1) firstAnswers++;
        if (a.status === 200) return;
        if (a.status !== 503 || attempt > 120) throw new Error(`decision on ${o.siren}: ${JSON.stringify(a)}`);
        await sleep(1_000);
      }
    });
    const readyAnswers = await ready;
    const lateAnswer = await lateJob;
    await waitUntil(async () => firstAnswers === rest.length, 30_000, 'a first answer to every decision', 100);
    const downMs = Date.now() - downAt;
    const restarted = Date.now();
    await server!.restart();
    say(
      `Temporal server down ${(downMs / 1000).toFixed(1)} s, started again in ${((Date.now() - restarted) / 1000).toFixed(1)} s`,
    );
    await approving;

    // While it was down: 503s that say why, in seconds; the job accepted (recorded, to be started later).
    const refused = answers.filter((a) => a.status === 503);
    say(
      `while down: ready ${readyAnswers.map((a) => `${a.status} in ${a.ms} ms (${JSON.stringify(a.body.checks ?? a.body)})`).join(', ')}; ` +
        `decisions ${answers.map((a) => `${a.status} in ${a.ms} ms`).join(', ')} ("${refused[0]?.body.code}: ${refused[0]?.body.detail}"); ` +
        `registration ${lateAnswer.status} ${lateAnswer.body.status} in ${lateAnswer.ms} ms`,
    );
    for (const a of readyAnswers) {
      expect(a.status, JSON.stringify(a)).toBe(503);
      expect(a.ms, a.what).toBeLessThan(DOWN_ANSWER_BOUND_MS);
      expect(a.body.checks.database).toBe('ok');
      expect(a.body.checks.temporal).not.toBe('ok');
      expect(a.body.checks.temporal.length).toBeGreaterThan(5);
    }
    expect(refused.length).toBeGreaterThanOrEqual(rest.length); // every first attempt, made while it was down
    for (const a of answers) expect(a.ms, `${a.what} answered ${a.status}`).toBeLessThan(HANG_BOUND_MS);
    for (const a of refused) {
      expect(a.ms, 'a decision refused while Temporal was down').toBeLessThan(DOWN_ANSWER_BOUND_MS);
      expect(a.contentType).toMatch(/^application\/problem\+json/);
      expect(a.body).toMatchObject({ status: 503, code: expect.any(String), detail: expect.any(String) });
      expect(a.body.detail).toMatch(/workflow engine is unavailable/);
    }
    expect(lateAnswer.status, JSON.stringify(lateAnswer)).toBe(202);
    expect(lateAnswer.ms).toBeLessThan(DOWN_ANSWER_BOUND_MS);
    expect(lateAnswer.body.status).toBe('QUEUED');
    const late = onboardings[LATE]!;
    late.jobId = lateAnswer.body.id as string;

    // 4. The service's PostgreSQL connections terminated while the workers carry the approved registrations on.
    const killedFirst = await killServiceConnections();
    say(`terminated ${killedFirst} service connections to PostgreSQL after ${elapsed()}`);
    expect(killedFirst).toBeGreaterThanOrEqual(2); // at least the APIs' LISTEN connections
    await survivedConnectionKill('during the registrations');

    // 5. A versioned deploy of the workers (README): the new build's workers start and make it current, then the
    // old build's stop (SIGTERM: they finish what they hold); the registrations move to the new build on their next
    // task, and a worker of the old build started again would not take back over.
    const oldWorkers = [...c().workers];
    const deployment = { namespace: server!.namespace, deploymentName: c().config.TEMPORAL_DEPLOYMENT_NAME };
    const oldBuild = await currentBuild(connection!, deployment);
    for (let i = 0; i < oldWorkers.length; i++) await c().startWorker({ WORKER_BUILD_ID: NEXT_BUILD });
    expect(await currentBuild(connection!, deployment)).toBe(NEXT_BUILD);
    for (const w of oldWorkers) {
      await w.kill('SIGTERM');
      retired.add(w);
      expect(w.child.exitCode, `${w.name} stopped on SIGTERM:\n${w.output().slice(-1500)}`).toBe(0);
    }
    // A worker of the old build started again (a supervisor's restart) serves, but does not take back over.
    const oldAgain = await c().startWorker();
    expect(oldAgain.output()).toContain('does not take back over');
    expect(await currentBuild(connection!, deployment)).toBe(NEXT_BUILD);
    await oldAgain.kill('SIGTERM');
    retired.add(oldAgain);
    const newWorkers = c().workers.filter((w) => !retired.has(w));
    say(
      `workers ${oldWorkers.map((w) => w.name).join(', ')} (build ${oldBuild}) replaced by ${newWorkers.map((w) => w.name).join(', ')} (build ${NEXT_BUILD}) after ${elapsed()}`,
    );

    // 6. LATE's job, recorded while Temporal was down, started by an API's sweeper; signed and approved.
    await waitUntil(
      async () =>
        (await c().db.query(`SELECT 1 FROM jobs WHERE id = $1 AND status = 'WAIT'`, [late.jobId])).rowCount === 1,
      90_000,
      'the registration posted while Temporal was down to be started and wait for its signer',
    );
    await signAndConfirm(c(), late.entryId, api(LATE + 1));
    await waitUntil(
      async () =>
        (await c().db.query(`SELECT 1 FROM entries WHERE id = $1 AND state = 'submitted'`, [late.entryId])).rowCount ===
        1,
      30_000,
      'its submission',
    );
    const lateDecision = await callApi(
      c(),
      'POST',
      `/apps/gov-fr/v1/entry/${late.entryId}/decision`,
      { approved: true },
      api(LATE),
    );
    expect(lateDecision.status, JSON.stringify(lateDecision.body)).toBe(200);
    await jobsUntil((n) => n.OK === N, `${N} registrations to finish`, 120_000);
    const registeredWorld = worldOf(c().sims, c().config);
    say(`${N} registered after ${elapsed()}`);

    // 7. A part unregistered, alternating between the APIs; the connections terminated again meanwhile.
    const gone = onboardings.filter((_, i) => leaves(i));
    const staying = onboardings.filter((_, i) => !leaves(i));
    const unregistrations = await pool(gone, 8, (o, i) => startUnregistration(c(), o.entryId, api(i)));
    await sleep(500);
    const killedSecond = await killServiceConnections();
    say(`terminated ${killedSecond} service connections to PostgreSQL during ${gone.length} unregistrations`);
    await survivedConnectionKill('during the unregistrations');
    await jobsUntil((n) => n.OK === N + gone.length, `${gone.length} unregistrations to finish`, 120_000);
    const seconds = (Date.now() - t0) / 1000;

    // Every job OK, no job's run left running in Temporal; each party registered or void. (The Schedules' runs, the
    // housekeeping's every 5 minutes, are no jobs': JobStatus names a job's.)
    expect(await jobCounts(c())).toEqual({ OK: N + gone.length });
    expect(await listed('ExecutionStatus = "Running" AND JobStatus IS NOT NULL', [])).toEqual([]);
    const allJobs = [...onboardings.map((o) => o.jobId!), ...unregistrations];
    expect(
      await listed(
        'ExecutionStatus = "Completed" AND JobStatus IS NOT NULL',
        allJobs.map((id) => temporalWorkflowId(id)),
      ),
    ).toEqual(allJobs.map((id) => temporalWorkflowId(id)).sort());
    const states = await rowsBy('SELECT id AS k, state AS v FROM entries');
    expect(onboardings.filter((o, i) => states.get(o.entryId) !== (leaves(i) ? 'void' : 'registered'))).toEqual([]);

    // External side effects once per address: registered parties' lines (one of ours ever created, in force),
    // routing codes, SML and Directory participants; the unregistered ones' lines created once and ended, their
    // SIREN back on the fictive platform, nothing at the SML or in the Directory; nothing else there.
    expect(onboardings.flatMap((o) => registeredFaults(registeredWorld, o))).toEqual([]);
    const world = worldOf(c().sims, c().config);
    expect(staying.flatMap((o) => registeredFaults(world, o))).toEqual([]);
    expect(gone.flatMap((o) => goneFaults(world, o, 'each address once'))).toEqual([]);
    const participants = (os: Onboarding[]) => os.flatMap(addressIds).map(participantOf).sort();
    expect(world.sml).toEqual(participants(staying));
    expect(world.directory).toEqual(participants(staying));
    expect(
      world.lines
        .filter((l) => l.matriculePlateforme === world.us)
        .map((l) => l.identifiantAdressage)
        .sort(),
    ).toEqual(onboardings.flatMap(addressIds).sort());
    expect(world.codes.map((rc) => `${rc.siret}/${rc.identifiantRoutage}`).sort()).toEqual(
      onboardings.flatMap((o) => o.addresses?.routingCodes.map((rc) => `${rc.siret}/${rc.id}`) ?? []).sort(),
    );

    // In the store: one mandate number, mandate and decision per entry; a directory holding per registered one;
    // SMP records enabled for the registered parties' addresses only; each state change and job end reported once.
    const entryIds = onboardings.map((o) => o.entryId).sort();
    const registered = staying.map((o) => o.entryId);
    const perEntry = await Promise.all([
      oncePerEntryFaults(c().db, 'mandate_numbers', entryIds),
      oncePerEntryFaults(c().db, 'mandates', entryIds),
      oncePerEntryFaults(c().db, 'approval_decisions', entryIds),
      oncePerEntryFaults(c().db, 'directory_holdings', registered),
    ]);
    expect(perEntry.flat()).toEqual([]);
    const enabled = await rowsBy(
      `SELECT entry_id AS k, array_agg(participant_id ORDER BY participant_id COLLATE "C") AS v FROM peppol_participants WHERE enabled GROUP BY entry_id`,
    );
    expect(new Map(staying.map((o) => [o.entryId, enabled.get(o.entryId)]))).toEqual(
      new Map(staying.map((o) => [o.entryId, addressIds(o).map(participantOf).sort()])),
    );
    expect(gone.filter((o) => enabled.has(o.entryId))).toEqual([]);
    const history = await rowsBy(
      `SELECT entry_id AS k, array_agg(state ORDER BY id) AS v FROM entry_states GROUP BY entry_id`,
    );
    const reported = await rowsBy(
      `SELECT entry_id AS k, array_agg(payload->>'state' ORDER BY at, id) AS v FROM events WHERE kind = 'party.state_changed' GROUP BY entry_id`,
    );
    for (const [i, o] of onboardings.entries()) {
      const registered = ['processing', 'submitted', 'completed', 'registered'];
      const h = history.get(o.entryId) as string[];
      expect(h.slice(0, 4), o.siren).toEqual(registered);
      expect(h.at(-1), o.siren).toBe(leaves(i) ? 'void' : 'registered');
      expect(reported.get(o.entryId), o.siren).toEqual(h);
    }
    const completed = await rowsBy(
      `SELECT job_id AS k, count(*)::int AS v FROM events WHERE kind = 'job.completed' GROUP BY job_id`,
    );
    expect([...completed.keys()].sort()).toEqual([...allJobs].sort());
    expect([...completed.values()].every((v) => v === 1)).toBe(true);

    // Our SMP publishes the production addresses, signed with the configured SMP key.
    const participant = participantOf(staying[0]!.siren);
    const group = await fetch(`${c().apiUrls[0]}/smp/${encodeURIComponent(participant)}`).then((r) => r.text());
    const href = /<(?:\w+:)?ServiceMetadataReference[^>]*href="([^"]+)"/.exec(group)?.[1];
    expect(href, group).toMatch(new RegExp(`^${PUBLIC}/smp/`));
    const metadata = await fetch(href!.replace(`${PUBLIC}/smp`, `${c().apiUrls[0]}/smp`)).then((r) => r.text());
    const body = (pem: string) => pem.replace(/-----[^-]+-----|\s/g, '');
    expect(metadata).toContain(`${PUBLIC}/as4</`);
    expect(metadata).toContain(body(keys.apCertPem));
    expect(metadata).toContain(body(keys.smpCertPem));

    // The faults did happen: activities retried, on the old workers and on their replacements.
    const runs = await pool(allJobs, 8, (id) => readHistory(client, id));
    const activities = runs.flatMap((h) => h.activities);
    const byPid = new Map<number, number>();
    for (const r of activities) {
      const p = Number(r.identity.split('@')[0]);
      byPid.set(p, (byPid.get(p) ?? 0) + 1);
    }
    const retried = activities.filter((r) => r.attempt > 1);
    const failures = new Map<string, number>();
    for (const r of retried) failures.set(r.lastFailure ?? '?', (failures.get(r.lastFailure ?? '?') ?? 0) + 1);
    say(
      `${N} registrations and ${gone.length} unregistrations in ${seconds.toFixed(0)} s; ${activities.length} activities, ` +
        `${retried.length} retried (max attempt ${Math.max(...activities.map((r) => r.attempt))}; ${JSON.stringify(Object.fromEntries(failures))}), ` +
        `${runs.reduce((n, h) => n + h.workflowTaskTimeouts, 0)} workflow tasks timed out; by worker: ` +
        [...oldWorkers, ...newWorkers].map((w) => `${w.name} ${byPid.get(w.child.pid!) ?? 0}`).join(', '),
    );
    for (const w of newWorkers) expect(byPid.get(w.child.pid!), `${w.name} ran activities`).toBeGreaterThan(0);
    expect(oldWorkers.some((w) => (byPid.get(w.child.pid!) ?? 0) > 0)).toBe(true);
    expect([...byPid.keys()].every((p) => [...oldWorkers, ...newWorkers].some((w) => w.child.pid === p))).toBe(true);
  }, 420_000);
});
