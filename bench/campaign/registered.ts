// `npm run bench:campaign -- --part registered --parties N [--concurrency C] [--server dev|real]`: N companies
// onboarded as one campaign, to `registered`, against the same N onboarded one at a time as `bench:onboarding`'s
// `ours` does it, on one Temporal server (`real`: Temporal's own server on the machine's PostgreSQL), one cluster
// (API and worker processes, PostgreSQL, simulators), under AUTO_APPROVE (a confirmed submission is approved at once).
//   one at a time: each company's entry made and its registration started over HTTP, C at a time → all wait for
//                  their signers; each signer signs and confirms → `registered`.
//   campaign:      the N companies as one file, uploaded, judged by the dry run, started → all wait for their
//                  signers; each signer signs and confirms → `registered`.
// Signing is the same in both and counted in both. Prints the CPU per company of each (Temporal + worker + API +
// PostgreSQL; the load generator and the simulators left out) and their ratio campaign / one at a time (goal ≤ 1.15),
// the wall times, and the CPU seconds by process.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ownDevServer, startCluster, type Cluster } from '../../bin/stack/cluster';
import { startTemporalServer } from '../../bin/stack/temporal-server';
import { createAndStart, pool, signAndConfirm, sirens, waitUntil } from '../../bin/stack/onboard';
import { campaignEntryIds, countCampaignJobsInStatus, countJobsInStatus } from '../../platform/store/stats';
import { startedCampaign } from './started-campaign';
import { cpuDelta, cpuSnapshot, formatCpu, msPerParty, withChildren, type CpuSnapshot } from '../onboarding/cpu';

const { values } = parseArgs({
  strict: false,
  options: {
    parties: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '32' },
    server: { type: 'string', default: 'real' },
  },
});
const N = Number(values.parties);
const C = Number(values.concurrency);
const REAL = values.server === 'real';
if (!Number.isInteger(N) || N < 1 || !Number.isInteger(C) || C < 1)
  throw new Error('--parties and --concurrency take positive integers');
if (values.server !== 'dev' && !REAL) throw new Error('--server takes dev or real');
const say = (msg: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);
const timeoutMs = 300_000 + N * 300;
const GROUPS = ['temporal', 'worker', 'api', 'postgres'];

interface Run {
  seconds: number;
  cpu: CpuSnapshot;
}

async function measured(cpu: () => ReturnType<typeof cpuSnapshot>, run: () => Promise<void>): Promise<Run> {
  const [c0, t0] = [cpu(), Date.now()];
  await run();
  return { seconds: (Date.now() - t0) / 1000, cpu: cpuDelta(c0, cpu()) };
}

/** Signs and confirms each entry, C at a time, then waits for all of `jobsOk` to be `registered`. */
async function signAll(c: Cluster, entryIds: string[], registered: () => Promise<number>) {
  await pool(entryIds, C, (id) => signAndConfirm(c, id));
  await waitUntil(async () => (await registered()) === entryIds.length, timeoutMs, `${N} registered`, 1000);
}

async function oneAtATime(c: Cluster): Promise<string[]> {
  const entryIds: string[] = [];
  const jobIds: string[] = [];
  await pool(sirens(N), C, async (siren) => {
    const o = await createAndStart(c, siren);
    entryIds.push(o.entryId);
    jobIds.push(o.jobId!);
  });
  const inState = (status: string) => countJobsInStatus(c.db, jobIds, status);
  await waitUntil(async () => (await inState('WAIT')) === N, timeoutMs, `${N} waiting for their signers`, 1000);
  say(`one at a time: ${N} waiting for their signers; signing`);
  await signAll(c, entryIds, () => inState('OK'));
  return jobIds;
}

async function asCampaign(c: Cluster): Promise<void> {
  // Each company its own signer (its own email), as one at a time: no bundle.
  const rows = sirens(N).map((s, i) => `${s};Société ${i};Élodie;Martin;Présidente;c${i}@example.fr;X4RTBPFW4`);
  const id = await startedCampaign(c, rows, timeoutMs);
  say(`campaign: ${N} waiting for their signers; signing`);
  await signAll(c, await campaignEntryIds(c.db, id), () => countCampaignJobsInStatus(c.db, id, 'OK'));
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-campaign-'));
say(`starting ${REAL ? 'the Temporal server on PostgreSQL' : 'a Temporal dev server'} and the cluster`);
const temporal = REAL
  ? await startTemporalServer({ databasePrefix: 'bench_campaign' })
  : await ownDevServer(dir, { inMemory: true });
const cluster = await startCluster({
  temporalAddress: temporal.address,
  env: {
    AUTO_APPROVE: 'true',
    RECONCILE_CRON: 'off',
    // The simulators take any pace: the steps' own limits would time the run, not its work.
    ANNUAIRE_STEPS_PER_S: '1000',
    PEPPOL_STEPS_PER_S: '1000',
    CAMPAIGN_ANNUAIRE_RPS: '1000',
    CAMPAIGN_DNS_RPS: '1000',
    CAMPAIGN_LAUNCH_PER_S: '200',
  },
});
const cpu = () =>
  cpuSnapshot({
    temporal: [temporal.pid],
    api: withChildren(cluster.apis.map((a) => a.child.pid!)),
    worker: cluster.workers.map((w) => w.child.pid!),
    'bench+simulators': [process.pid],
    postgres: 'postgres',
  });
try {
  say(`one at a time: ${N} companies`);
  const single = await measured(cpu, async () => void (await oneAtATime(cluster)));
  say(`as a campaign: ${N} companies`);
  const campaign = await measured(cpu, () => asCampaign(cluster));
  const [a, b] = [msPerParty(single.cpu, GROUPS, N), msPerParty(campaign.cpu, GROUPS, N)];
  console.log(`
npm run bench:campaign -- --part registered --parties ${N} --concurrency ${C} --server ${REAL ? 'real' : 'dev'}   (Node ${process.version}, ${os.cpus().length} CPUs, ${REAL ? 'Temporal server 1.29.1 on PostgreSQL' : 'dev server in memory'}, AUTO_APPROVE)
  one at a time  ${single.seconds.toFixed(1)} s, CPU ${a.toFixed(1)} ms a company
  as a campaign  ${campaign.seconds.toFixed(1)} s, CPU ${b.toFixed(1)} ms a company
  CPU ratio campaign / one at a time: ${(b / a).toFixed(3)} (goal ≤ 1.15)
  CPU seconds by process: one at a time ${formatCpu(single.cpu)}
                          campaign      ${formatCpu(campaign.cpu)}
`);
} finally {
  await cluster.close();
  await temporal.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
