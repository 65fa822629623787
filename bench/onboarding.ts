// `npm run bench:onboarding -- --parties N [--concurrency C] [--server dev|real]`: bulk onboarding through the HTTP
// API against the floor of what Temporal allows for the specification's shape, in one run, on one Temporal server
// with the same worker settings, C requests at a time in each. The server: the CLI's dev server in memory (default),
// or the real Temporal server 1.29.1 with persistence and visibility on the machine's PostgreSQL (`real`, as
// production runs it; its PostgreSQL's CPU is then Temporal's, and counts in the floor too).
//   ours:  N parties created and N registration jobs started over HTTP (API and worker as separate processes,
//          PostgreSQL, simulators) → the approval wait (mandate generated, link published); then, untimed, each
//          signer signs and confirms; then all are approved → `registered`.
//   floor: N workflows of the specification's shape, all activities no-ops (onboarding/floor-workflow.ts), started
//          with our 3 search attributes → 2 activities → the wait and its deadline's timer; then, untimed, the
//          `confirmed` signal to all; then the `decided` signal → 4 activities → done; the same 4 upserts as ours;
//          on a worker process with the same settings, versioned as ours (Worker Versioning is issue 42's: Temporal's
//          cost for it is the design's); run before ours and again after, on the same server, and averaged.
// Prints the shape of one of our histories beside one of the floor's, and the mean size of a registration's history
// (events, bytes; 100 sampled) beside the floor's; per phase the rate (parties/s from the first
// request to the last arrival), p50/p95 latency per party, the CPU per party (floor: Temporal + worker; ours:
// Temporal + worker + API + PostgreSQL; the load generator and simulators are left out) and the CPU ratio
// floor/ours (goal ≥ 0.75) beside the rate ratio ours/floor, and each floor run's CPU per party; CPU seconds by
// process; the worker's RSS with N parked (goal ≤ 512 MB) and its peaks.
import { countEntriesInState, jobTimesInStatus, someFailedJobFaults } from '../platform/store/stats';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { temporalWorkflowId } from '../domain/jobs/jobs';
import { ownDevServer, startCluster, type Cluster } from '../bin/stack/cluster';
import { startTemporalServer } from '../bin/stack/temporal-server';
import { approve, createAndStart, jobCounts, pool, signAndConfirm, sirens, waitUntil } from '../bin/stack/onboard';
import { countShape, formatActivityTimes, formatHistorySize, formatShape, meanHistorySize } from './onboarding/shape';
import { cpuDelta, cpuSnapshot, formatCpu, msPerParty, withChildren, type CpuSnapshot } from './onboarding/cpu';
import { meanFloor, runFloor } from './onboarding/floor';
import { phaseResult, timed, type PhaseResult } from './onboarding/phase';

const { values } = parseArgs({
  options: {
    parties: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '32' },
    persisted: { type: 'boolean', default: false },
    server: { type: 'string', default: 'dev' },
  },
});
if (values.server !== 'dev' && values.server !== 'real') throw new Error('--server takes dev or real');
const REAL = values.server === 'real';
const N = Number(values.parties);
const C = Number(values.concurrency);
if (!Number.isInteger(N) || N < 1 || !Number.isInteger(C) || C < 1)
  throw new Error('--parties and --concurrency take positive integers');
const say = (msg: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);
const phaseTimeoutMs = 120_000 + N * 300;
const POLL_MS = 1000;

/**
 * The jobs counted by status, failing the run at the first ERR. Polled once a second: the phases' times come from
 * the jobs' own timestamps, and each count reads the whole jobs table (its PostgreSQL CPU is counted as ours).
 */
async function countJobs(c: Cluster): Promise<Record<string, number>> {
  const counts = await jobCounts(c);
  if (counts.ERR) {
    throw new Error(`${counts.ERR} registrations failed, e.g. ${JSON.stringify(await someFailedJobFaults(c.db))}`);
  }
  return counts;
}

/** `earlier`: registrations already finished before this run (the probe), counted out. */
async function ours(cluster: Cluster, earlier: number) {
  const cpu = () =>
    cpuSnapshot({
      temporal: [temporal.pid],
      api: withChildren(cluster.apis.map((a) => a.child.pid!)),
      worker: cluster.workers.map((w) => w.child.pid!),
      'bench+simulators': [process.pid],
      postgres: 'postgres',
    });
  const cpu0 = cpu();
  const parties = sirens(N);
  const jobIds: string[] = new Array(N);
  const entryIds: string[] = new Array(N);
  const started = await timed(parties, C, async (siren, i) => {
    const o = await createAndStart(cluster, siren);
    jobIds[i] = o.jobId!;
    entryIds[i] = o.entryId;
  });
  await waitUntil(
    async () => ((await countJobs(cluster)).WAIT ?? 0) === N,
    phaseTimeoutMs,
    `${N} jobs to wait for approval`,
    POLL_MS,
  );
  const waitAt = await jobTimesInStatus(cluster.db, 'WAIT');
  const parkedRss = { now: cluster.workers[0]!.rssMb(), peak: cluster.workers[0]!.peakRssMb() };
  const cpu1 = cpu();
  say(`${N} parked; signing and confirming`);

  const signStart = Date.now();
  await pool(entryIds, C, (id) => signAndConfirm(cluster, id));
  await waitUntil(
    async () => (await countEntriesInState(cluster.db, 'submitted')) === N,
    phaseTimeoutMs,
    `${N} submissions`,
  );
  const signSeconds = (Date.now() - signStart) / 1000;

  say('approving');
  const cpu2 = cpu();
  const approved = await timed(entryIds, C, async (id) => {
    await approve(cluster, id);
  });
  await waitUntil(
    async () => ((await countJobs(cluster)).OK ?? 0) === N + earlier,
    phaseTimeoutMs,
    `${N} jobs to finish`,
    POLL_MS,
  );
  const doneAt = await jobTimesInStatus(cluster.db, 'OK');
  const cpu3 = cpu();
  const registered = await countEntriesInState(cluster.db, 'registered');
  if (registered !== N + earlier) throw new Error(`${registered} of ${N} parties registered`);

  return {
    jobIds,
    history: await meanHistorySize(client, jobIds.map(temporalWorkflowId)),
    toWait: phaseResult(
      started,
      jobIds.map((id) => waitAt.get(id)!),
    ),
    toRegistered: phaseResult(
      approved,
      jobIds.map((id) => doneAt.get(id)!),
    ),
    signSeconds,
    parkedRss,
    peakRss: cluster.workers[0]!.peakRssMb(),
    cpu: { toWait: cpuDelta(cpu0, cpu1), toRegistered: cpuDelta(cpu2, cpu3) },
  };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-onboarding-'));
say(
  `starting ${REAL ? 'the Temporal server on PostgreSQL' : 'a Temporal dev server'}, PostgreSQL schema, simulators, API and worker processes`,
);
// The dev server in memory by default: with its SQLite file it serialises every write to disk and, past a few
// hundred workflows in flight on this machine, times its own updates out ("context deadline exceeded"), which
// measures the disk, not Temporal. --persisted to see it.
const temporal = REAL
  ? await startTemporalServer({
      databasePrefix: 'bench_temporal',
      // To profile the server during a run: BENCH_TEMPORAL_PPROF_PORT=6060, then go tool pprof on it.
      ...(process.env.BENCH_TEMPORAL_PPROF_PORT && { pprofPort: Number(process.env.BENCH_TEMPORAL_PPROF_PORT) }),
    })
  : await ownDevServer(dir, { inMemory: !values.persisted });
const connection = await Connection.connect({ address: temporal.address });
const client = new Client({ connection });
const cluster = await startCluster({ temporalAddress: temporal.address });
try {
  // One registration run before the measurements, whose history's shape is printed beside the floor's.
  say('one registration to read its shape');
  const probe = await probeRegistration(cluster);
  const shape = countShape(await client.workflow.getHandle(temporalWorkflowId(probe)).fetchHistory());
  // The dev server's cost per workflow grows with the workflows it holds (+55 % for the same workflow after 4000
  // others): the floor runs before and after ours, and ours is compared with the mean of the two.
  say(`floor, before ours: ${N} workflows`);
  const floor = () =>
    runFloor({
      client,
      env: cluster.env,
      temporalPid: temporal.pid,
      postgres: REAL,
      parties: N,
      concurrency: C,
      timeoutMs: phaseTimeoutMs,
      say,
    });
  const before = await floor();
  say(`ours: ${N} registrations`);
  const o = await ours(cluster, 1);
  say(`floor, after ours: ${N} workflows`);
  const after = await floor();
  const f = meanFloor(before, after);
  const mb = (x?: number) => (x === undefined ? '?' : `${x.toFixed(0)} MB`);
  const row = (name: string, r: PhaseResult) =>
    `${name.padEnd(36)} ${r.rate.toFixed(1).padStart(8)}/s ${String(Math.round(r.p50)).padStart(8)} ms ${String(Math.round(r.p95)).padStart(8)} ms ${r.seconds.toFixed(1).padStart(8)} s`;
  console.log(
    `\nnpm run bench:onboarding -- --parties ${N} --concurrency ${C}${values.persisted ? ' --persisted' : ''}${REAL ? ' --server real' : ''}   (Node ${process.version}, ${os.cpus().length} CPUs, ${REAL ? 'Temporal server 1.29.1 on PostgreSQL' : `dev server ${values.persisted ? 'on its SQLite file' : 'in memory'}`})`,
  );
  console.log(`shape  ours:  ${formatShape(shape)}`);
  console.log(`shape  floor: ${formatShape(before.shape)}`);
  console.log(
    `history per registration (mean of ${o.history.runs}): ours ${formatHistorySize(o.history)}; floor ${formatHistorySize(before.history)}`,
  );
  console.log(`activities, queued/ran: ours ${formatActivityTimes(o.history.activities)}`);
  console.log(`                        floor ${formatActivityTimes(before.history.activities)}`);
  console.log(
    `${'phase'.padEnd(36)} ${'rate'.padStart(10)} ${'p50'.padStart(11)} ${'p95'.padStart(11)} ${'span'.padStart(10)}`,
  );
  console.log(row('floor before: start → wait', before.toWait));
  console.log(row('floor after:  start → wait', after.toWait));
  console.log(row('ours: create + start → approval wait', o.toWait));
  console.log(row('floor before: decided → done', before.toRegistered));
  console.log(row('floor after:  decided → done', after.toRegistered));
  console.log(row('ours: approve → registered', o.toRegistered));
  // The goal is on CPU per party: a rate also depends on how the load generator and the simulators share this
  // machine's CPUs. Ours counts what it needs and the floor does without (API, PostgreSQL); the bench process (load
  // generator, simulators) is left out of both.
  // On the real server, PostgreSQL is Temporal's store: the floor needs it too (every backend is counted, Temporal's and
  // ours alike, as they share the server).
  const FLOOR = REAL ? ['temporal', 'worker', 'postgres'] : ['temporal', 'worker'];
  const OURS = ['temporal', 'worker', 'api', 'postgres'];
  // Three decimals: a ratio of 0.749 must not print as 0.75 against a goal of 0.75.
  const cpuLine = (name: string, fc: CpuSnapshot, oc: CpuSnapshot, fr: PhaseResult, or: PhaseResult) => {
    const [a, b] = [msPerParty(fc, FLOOR, N), msPerParty(oc, OURS, N)];
    return `  ${name.padEnd(15)} floor ${a.toFixed(1)} ms, ours ${b.toFixed(1)} ms: CPU ratio floor/ours ${(a / b).toFixed(3)} (goal ≥ 0.75), rate ratio ours/floor ${(or.rate / fr.rate).toFixed(3)}`;
  };
  console.log(
    `CPU per party (floor: Temporal + worker${REAL ? ' + PostgreSQL' : ''}, mean of its two runs; ours: Temporal + worker + API + PostgreSQL):`,
  );
  console.log(cpuLine('to the wait:', f.cpu.toWait, o.cpu.toWait, f.toWait, o.toWait));
  console.log(cpuLine('to registered:', f.cpu.toRegistered, o.cpu.toRegistered, f.toRegistered, o.toRegistered));
  // The mean hides how far apart the floor's two runs were: the spread a single run's ratio carries.
  const floorRuns = (phase: 'toWait' | 'toRegistered') =>
    `before ${msPerParty(before.cpu[phase], FLOOR, N).toFixed(1)} ms, after ${msPerParty(after.cpu[phase], FLOOR, N).toFixed(1)} ms`;
  console.log(`  floor's runs:  to the wait ${floorRuns('toWait')}; to registered ${floorRuns('toRegistered')}`);
  console.log('CPU seconds by process (floor: mean of before and after; bench, bench+simulators: not in the ratios):');
  console.log(`  to the wait:   floor ${formatCpu(f.cpu.toWait)}`);
  console.log(`                 ours  ${formatCpu(o.cpu.toWait)}`);
  console.log(`  to registered: floor ${formatCpu(f.cpu.toRegistered)}`);
  console.log(`                 ours  ${formatCpu(o.cpu.toRegistered)}`);
  console.log(
    `untimed phase for ${N}: ours signing and confirming ${o.signSeconds.toFixed(1)} s; floor confirmed signal ${f.confirmSeconds.toFixed(1)} s`,
  );
  console.log(
    `worker RSS with ${N} parked: ours ${mb(o.parkedRss.now)} (goal ≤ 512 MB), peak so far ${mb(o.parkedRss.peak)}, peak at the end ${mb(o.peakRss)}; floor peak ${mb(f.parkedRss)} parked, ${mb(f.peakRss)} at the end`,
  );
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
  await waitUntil(async () => (await countEntriesInState(c.db, 'submitted')) === 1, 60_000, 'the probe submission');
  await approve(c, o.entryId);
  await waitUntil(async () => ((await jobCounts(c)).OK ?? 0) === 1, 60_000, 'the probe to finish');
  return o.jobId!;
}
