// `npm run bench:onboarding -- --parties N [--concurrency C]`: bulk onboarding through the HTTP API against the
// floor of what Temporal allows, in one run, on one dev server with the same worker settings.
//   ours:  N parties created and N registration jobs started over HTTP (API and worker as separate processes,
//          PostgreSQL, simulators) → the approval wait (mandate generated, link published); then, untimed, each
//          signer signs and confirms; then all are approved → `registered`.
//   floor: N workflows with the same number of no-op activities and local activities in each phase (counted from
//          one of our histories) around one signal wait, on a worker process with the same settings; run before
//          ours and again after, on the same server, and averaged.
// Prints per phase the rate (parties/s from the first request to the last arrival), p50/p95 latency per party,
// the ratio ours/floor (goal ≥ 0.7), and the worker's RSS with N parked (goal ≤ 512 MB) and its peaks.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { temporalWorkflowId } from '../transform/jobs';
import { memoryMb, ownDevServer, startCluster, type Cluster } from '../test/support/cluster';
import { approve, createAndStart, jobCounts, pool, signAndConfirm, sirens, waitUntil } from '../test/support/onboard';
import { countShape, type Shape } from './onboarding/shape';
import { cpuDelta, cpuSnapshot, formatCpu, perParty, withChildren, type CpuSnapshot } from './onboarding/cpu';
import { goSignal } from './onboarding/floor-workflow';

const { values } = parseArgs({
  options: { parties: { type: 'string', default: '1000' }, concurrency: { type: 'string', default: '32' }, persisted: { type: 'boolean', default: false } },
});
const N = Number(values.parties);
const C = Number(values.concurrency);
if (!Number.isInteger(N) || N < 1 || !Number.isInteger(C) || C < 1) throw new Error('--parties and --concurrency take positive integers');
const say = (msg: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);
const phaseTimeoutMs = 120_000 + N * 300;
const POLL_MS = 1000;

interface PhaseResult { rate: number; p50: number; p95: number; seconds: number }

/** Rate over the whole phase (first start to last arrival) and per-party latency percentiles. */
function phaseResult(starts: number[], ends: number[]): PhaseResult {
  const lat = ends.map((e, i) => e - starts[i]!).sort((a, b) => a - b);
  const span = (Math.max(...ends) - Math.min(...starts)) / 1000;
  const pct = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))]!;
  return { rate: starts.length / span, p50: pct(0.5), p95: pct(0.95), seconds: span };
}

async function timed<T>(items: T[], fn: (item: T, i: number) => Promise<void>): Promise<number[]> {
  const at: number[] = new Array(items.length);
  await pool(items, C, async (item, i) => {
    at[i] = Date.now();
    await fn(item, i);
  });
  return at;
}

async function epochMs(c: Cluster, sql: string): Promise<Map<string, number>> {
  const rows = (await c.db.query<{ id: string; t: number }>(sql)).rows;
  return new Map(rows.map((r) => [r.id, Number(r.t)]));
}

/**
 * The jobs counted by status, failing the run at the first ERR. Polled once a second: the phases' times come from
 * the jobs' own timestamps, and each count reads the whole jobs table (its PostgreSQL CPU is counted as ours).
 */
async function countJobs(c: Cluster): Promise<Record<string, number>> {
  const counts = await jobCounts(c);
  if (counts.ERR) {
    const { rows } = await c.db.query<{ faults: unknown }>(`SELECT faults FROM jobs WHERE status = 'ERR' LIMIT 3`);
    throw new Error(`${counts.ERR} registrations failed, e.g. ${JSON.stringify(rows)}`);
  }
  return counts;
}

/** `earlier`: registrations already finished before this run (the probe), counted out. */
async function ours(cluster: Cluster, earlier: number) {
  const cpu = () => cpuSnapshot({ temporal: [temporal.pid], api: withChildren(cluster.apis.map((a) => a.child.pid!)), worker: cluster.workers.map((w) => w.child.pid!), 'bench+simulators': [process.pid], postgres: 'postgres' });
  const cpu0 = cpu();
  const parties = sirens(N);
  const jobIds: string[] = new Array(N);
  const entryIds: string[] = new Array(N);
  const started = await timed(parties, async (siren, i) => {
    const o = await createAndStart(cluster, siren);
    jobIds[i] = o.jobId!;
    entryIds[i] = o.entryId;
  });
  await waitUntil(async () => ((await countJobs(cluster)).WAIT ?? 0) === N, phaseTimeoutMs, `${N} jobs to wait for approval`, POLL_MS);
  const waitAt = await epochMs(cluster, `SELECT id, extract(epoch FROM updated_at) * 1000 AS t FROM jobs WHERE status = 'WAIT'`);
  const parkedRss = { now: cluster.workers[0]!.rssMb(), peak: cluster.workers[0]!.peakRssMb() };
  const cpu1 = cpu();
  say(`${N} parked; signing and confirming`);

  const signStart = Date.now();
  await pool(entryIds, C, (id) => signAndConfirm(cluster, id));
  await waitUntil(async () => Number((await cluster.db.query<{ n: string }>(`SELECT count(*) AS n FROM entries WHERE state = 'submitted'`)).rows[0]!.n) === N,
    phaseTimeoutMs, `${N} submissions`);
  const signSeconds = (Date.now() - signStart) / 1000;

  say('approving');
  const cpu2 = cpu();
  const approved = await timed(entryIds, async (id) => { await approve(cluster, id); });
  await waitUntil(async () => ((await countJobs(cluster)).OK ?? 0) === N + earlier, phaseTimeoutMs, `${N} jobs to finish`, POLL_MS);
  const doneAt = await epochMs(cluster, `SELECT id, extract(epoch FROM completed_at) * 1000 AS t FROM jobs WHERE status = 'OK'`);
  const cpu3 = cpu();
  const registered = Number((await cluster.db.query<{ n: string }>(`SELECT count(*) AS n FROM entries WHERE state = 'registered'`)).rows[0]!.n);
  if (registered !== N + earlier) throw new Error(`${registered} of ${N} parties registered`);

  return {
    jobIds,
    toWait: phaseResult(started, jobIds.map((id) => waitAt.get(id)!)),
    toRegistered: phaseResult(approved, jobIds.map((id) => doneAt.get(id)!)),
    signSeconds, parkedRss, peakRss: cluster.workers[0]!.peakRssMb(),
    cpu: { toWait: cpuDelta(cpu0, cpu1), toRegistered: cpuDelta(cpu2, cpu3) },
  };
}

async function floor(client: Client, env: Record<string, string>, shape: Shape) {
  const taskQueue = `floor-${Date.now()}`;
  const worker = fork(path.join(path.dirname(fileURLToPath(import.meta.url)), 'onboarding', 'floor-worker.ts'), [], {
    env: { ...process.env, ...env, TEMPORAL_TASK_QUEUE: taskQueue }, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    worker.stdout!.on('data', (d) => String(d).includes('floor worker running') && resolve());
    worker.once('exit', (code) => reject(new Error(`floor worker exited (${code})`)));
  });
  const ask = <T>(what: 'counts' | 'marks') => new Promise<T>((resolve) => { worker.once('message', (m) => resolve(m as T)); worker.send({ ask: what }); });
  const ids = Array.from({ length: N }, (_, i) => `${taskQueue}-${i}`);
  const cpu = () => cpuSnapshot({ temporal: [temporal.pid], worker: [worker.pid!], bench: [process.pid], postgres: 'postgres' });
  try {
    const cpu0 = cpu();
    const started = await timed(ids, async (workflowId) => {
      await client.workflow.start('floorRegistration', { taskQueue, workflowId, args: [{ before: shape.before, after: shape.after }] });
    });
    await waitUntil(async () => (await ask<{ waiting: number }>('counts')).waiting === N, phaseTimeoutMs, `${N} floor workflows to wait`);
    say(`floor: ${N} parked; signalling`);
    const parkedRss = memoryMb(worker.pid!, 'VmHWM');
    const cpu1 = cpu();
    const signalled = await timed(ids, async (workflowId) => { await client.workflow.getHandle(workflowId).signal(goSignal); });
    await waitUntil(async () => (await ask<{ done: number }>('counts')).done === N, phaseTimeoutMs, `${N} floor workflows to finish`);
    const cpu2 = cpu();
    const marks = await ask<{ waiting: [string, number][]; done: [string, number][] }>('marks');
    const waiting = new Map(marks.waiting);
    const done = new Map(marks.done);
    return {
      toWait: phaseResult(started, ids.map((id) => waiting.get(id)!)),
      toRegistered: phaseResult(signalled, ids.map((id) => done.get(id)!)),
      parkedRss, peakRss: memoryMb(worker.pid!, 'VmHWM'),
      cpu: { toWait: cpuDelta(cpu0, cpu1), toRegistered: cpuDelta(cpu1, cpu2) },
    };
  } finally {
    worker.kill('SIGKILL');
  }
}

type FloorResult = Awaited<ReturnType<typeof floor>>;

/** The floor run before ours and the one after, averaged: rates, latencies, CPU; memory from the first. */
function meanFloor(a: FloorResult, b: FloorResult): FloorResult {
  const phase = (x: PhaseResult, y: PhaseResult): PhaseResult => ({ rate: (x.rate + y.rate) / 2, p50: (x.p50 + y.p50) / 2, p95: (x.p95 + y.p95) / 2, seconds: (x.seconds + y.seconds) / 2 });
  const cpu = (x: CpuSnapshot, y: CpuSnapshot) => Object.fromEntries(Object.keys(x).map((k) => [k, (x[k]! + (y[k] ?? 0)) / 2]));
  return {
    ...a,
    toWait: phase(a.toWait, b.toWait),
    toRegistered: phase(a.toRegistered, b.toRegistered),
    cpu: { toWait: cpu(a.cpu.toWait, b.cpu.toWait), toRegistered: cpu(a.cpu.toRegistered, b.cpu.toRegistered) },
  };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-onboarding-'));
say('starting a Temporal dev server, PostgreSQL schema, simulators, API and worker processes');
// In memory by default: with its SQLite file the dev server serialises every write to disk and, past a few
// hundred workflows in flight on this machine, times its own updates out ("context deadline exceeded"), which
// measures the disk, not Temporal. --persisted to see it.
const temporal = await ownDevServer(dir, { inMemory: !values.persisted });
const connection = await Connection.connect({ address: temporal.address });
const client = new Client({ connection });
const cluster = await startCluster({ temporalAddress: temporal.address });
try {
  // Our shape first, from a single registration run before the measurements (its history is the reference).
  say('one registration to read its shape');
  const probe = await probeRegistration(cluster);
  const shape = countShape(await client.workflow.getHandle(temporalWorkflowId(probe)).fetchHistory());
  // The dev server's cost per workflow grows with the workflows it holds (+55 % for the same workflow after 4000
  // others): the floor runs before and after ours, and ours is compared with the mean of the two.
  say(`floor, before ours: ${N} workflows`);
  const before = await floor(client, cluster.env, shape);
  say(`ours: ${N} registrations`);
  const o = await ours(cluster, 1);
  say(`floor, after ours: ${N} workflows`);
  const after = await floor(client, cluster.env, shape);
  const f = meanFloor(before, after);
  const mb = (x?: number) => (x === undefined ? '?' : `${x.toFixed(0)} MB`);
  const row = (name: string, r: PhaseResult) => `${name.padEnd(34)} ${r.rate.toFixed(1).padStart(8)}/s ${String(Math.round(r.p50)).padStart(8)} ms ${String(Math.round(r.p95)).padStart(8)} ms ${r.seconds.toFixed(1).padStart(8)} s`;
  console.log(`\nnpm run bench:onboarding -- --parties ${N} --concurrency ${C}${values.persisted ? ' --persisted' : ''}   (Node ${process.version}, ${os.cpus().length} CPUs, dev server ${values.persisted ? 'on its SQLite file' : 'in memory'})`);
  console.log(`shape per registration: before the wait ${shape.before.activities} activities + ${shape.before.localActivities} local; after ${shape.after.activities} + ${shape.after.localActivities}`);
  console.log(`${'phase'.padEnd(34)} ${'rate'.padStart(10)} ${'p50'.padStart(11)} ${'p95'.padStart(11)} ${'span'.padStart(10)}`);
  console.log(row('floor before: start → signal wait', before.toWait));
  console.log(row('floor after:  start → signal wait', after.toWait));
  console.log(row('ours: create + start → approval wait', o.toWait));
  console.log(row('floor before: signal → done', before.toRegistered));
  console.log(row('floor after:  signal → done', after.toRegistered));
  console.log(row('ours: approve → registered', o.toRegistered));
  // Three decimals: a ratio of 0.697 must not print as 0.70 against a goal of 0.7.
  const ratio = (a: PhaseResult, b: PhaseResult) => (a.rate / b.rate).toFixed(3);
  console.log(`ratio to the approval wait ${ratio(o.toWait, f.toWait)}, to registered ${ratio(o.toRegistered, f.toRegistered)} (goal ≥ 0.7), ` +
    `against the mean of the floor's two rates (the floor before alone: ${ratio(o.toWait, before.toWait)}, ${ratio(o.toRegistered, before.toRegistered)})`);
  console.log('CPU seconds by process (floor: mean of before and after):');
  console.log(`  to the wait:   floor ${formatCpu(f.cpu.toWait)}`);
  console.log(`                 ours  ${formatCpu(o.cpu.toWait)}`);
  console.log(`  to registered: floor ${formatCpu(f.cpu.toRegistered)}`);
  console.log(`                 ours  ${formatCpu(o.cpu.toRegistered)}`);
  console.log('CPU per party, all processes:');
  console.log(`  to the wait:   floor ${perParty(f.cpu.toWait, N)}, ours ${perParty(o.cpu.toWait, N)}`);
  console.log(`  to registered: floor ${perParty(f.cpu.toRegistered, N)}, ours ${perParty(o.cpu.toRegistered, N)}`);
  console.log(`signing and confirming (untimed phase): ${o.signSeconds.toFixed(1)} s for ${N}`);
  console.log(`worker RSS with ${N} parked: ours ${mb(o.parkedRss.now)} (goal ≤ 512 MB), peak so far ${mb(o.parkedRss.peak)}, peak at the end ${mb(o.peakRss)}; floor peak ${mb(f.parkedRss)} parked, ${mb(f.peakRss)} at the end`);
} finally {
  await cluster.close();
  await connection.close();
  await temporal.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}

async function probeRegistration(c: Cluster): Promise<string> {
  const [siren] = sirens(1);
  const o = await createAndStart(c, siren!);
  await waitUntil(async () => ((await jobCounts(c)).WAIT ?? 0) === 1, 60_000, 'the probe to wait');
  await signAndConfirm(c, o.entryId);
  await waitUntil(async () => Number((await c.db.query<{ n: string }>(`SELECT count(*) AS n FROM entries WHERE state = 'submitted'`)).rows[0]!.n) === 1, 60_000, 'the probe submission');
  await approve(c, o.entryId);
  await waitUntil(async () => ((await jobCounts(c)).OK ?? 0) === 1, 60_000, 'the probe to finish');
  return o.jobId!;
}
