// `npm run bench:reconcile -- --parties N [--rate R] [--drift D]`: one nightly reconciliation over N registered
// parties, seeded directly (the store, the Annuaire simulator's and the SML simulator's bulk routes, plus half as
// many lines and participants of other platforms and SMPs), with the Annuaire simulator limited to R requests/s (50)
// and D of the parties (0.001) taken over by another platform first. On the production topology (API and worker
// processes, PostgreSQL, a Temporal dev server; the simulators in a process of their own).
// The floor is the Annuaire's quota: our matricule's lines can be read no faster than R pages of 100 a second. It
// prints the requests per party by system (goal: all of them ≤ 0.05), the wall time against requests ÷ R (goal
// ≤ 1.1×), and each process's peak RSS (goal ≤ 512 MB).
import { fork } from 'node:child_process';
import crypto from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { ownDevServer, startCluster } from '../bin/stack/cluster';
import { memoryMb } from '../bin/stack/service-process';
import { RECONCILIATION_WORKFLOW_TYPE, type RunSummary } from '../contract/reconciliation';
import { createWorkspace } from '../platform/store/workspaces';
import { insertRegisteredParties } from '../platform/store/registered-parties-seed';
import { makeSiren } from '../bin/stack/sample-parties';

const { values } = parseArgs({
  options: {
    parties: { type: 'string', default: '10000' },
    rate: { type: 'string', default: '50' },
    drift: { type: 'string', default: '0.001' },
  },
});
const N = Number(values.parties);
const RATE = Number(values.rate);
const DRIFT = Number(values.drift);
if (!Number.isInteger(N) || N < 1 || !(RATE > 0) || !(DRIFT >= 0 && DRIFT < 1))
  throw new Error('--parties takes a positive integer, --rate a positive number, --drift a share below 1');
const say = (msg: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);
const OURS = '0145';
const today = new Date().toISOString().slice(0, 10);

async function post(url: string, body: unknown): Promise<{ firstIdInstance: number }> {
  const res = await fetch(url, { method: 'POST', body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as { firstIdInstance: number };
}

const simulators = fork(new URL('./reconcile/simulators.ts', import.meta.url).pathname, {
  execArgv: ['--import', 'tsx'],
});
const simEnv = await new Promise<Record<string, string>>((resolve) => simulators.once('message', resolve as never));
const temporal = await ownDevServer(os.tmpdir(), { inMemory: true });
const cluster = await startCluster({
  temporalAddress: temporal.address,
  // The services use the simulators' process (the cluster's own, in this process, stay idle).
  env: { ...simEnv, RECONCILE_CRON: 'off', RECONCILE_ANNUAIRE_RPS: String(RATE) },
});
try {
  const annuaire = new URL(simEnv.ANNUAIRE_URL!).origin;
  const sml = simEnv.SML_URL!;
  const smpId = cluster.config.SMP_ID;
  say(`seeding ${N} registered parties, ${Math.floor(N / 2)} lines and participants of others`);
  const seedStart = Date.now();
  const sirens = new Set<string>();
  while (sirens.size < N + Math.floor(N / 2)) sirens.add(makeSiren());
  const all = [...sirens];
  const ours = all.slice(0, N);
  const others = all.slice(N);
  const line = (siren: string, matriculePlateforme: string) => ({
    siren,
    matriculePlateforme,
    dateDebutEffet: '2026-09-01',
  });
  // Interleaved with other platforms' lines, as the directory holds them.
  const seeds = ours.flatMap((s, i) =>
    i % 2 === 0 && others[i / 2] ? [line(s, OURS), line(others[i / 2]!, '0099')] : [line(s, OURS)],
  );
  const created = await post(`${annuaire}/_simulator/lines:bulk`, seeds);
  const ids = new Map<string, number>();
  seeds.forEach((s, i) => s.matriculePlateforme === OURS && ids.set(s.siren, created.firstIdInstance + i));
  const participant = (siren: string) => `iso6523-actorid-upis::0225:${siren}`;
  await post(`${sml}/_simulator/participants`, { smpId, participants: ours.map(participant) });
  await post(`${sml}/_simulator/participants`, { smpId: 'OTHER-SMP', participants: others.map(participant) });
  const ws = await createWorkspace(cluster.db, 'bench');
  for (let i = 0; i < N; i += 10_000) {
    const batch = ours.slice(i, i + 10_000).map((siren) => ({
      entryId: crypto.randomUUID(),
      siren,
      idInstance: ids.get(siren)!,
      participantId: participant(siren),
    }));
    await insertRegisteredParties(cluster.db, ws.id, batch);
  }
  const moved = ours.slice(0, Math.round(N * DRIFT));
  for (const siren of moved)
    await post(`${annuaire}/_simulator/lines`, { ...line(siren, '0099'), dateDebutEffet: today, takeOver: true });
  say(`seeded in ${((Date.now() - seedStart) / 1000).toFixed(1)} s; ${moved.length} taken over by platform 0099`);

  const limited = await fetch(`${annuaire}/_simulator/settings`, {
    method: 'PUT',
    body: JSON.stringify({ rateLimitPerSecond: RATE }),
  });
  if (!limited.ok) throw new Error(`the Annuaire simulator's rate limit: ${limited.status}`);
  const client = new Client({ connection: await Connection.connect({ address: temporal.address }) });
  say(`reconciling (the Annuaire simulator limited to ${RATE} requests/s)…`);
  const start = Date.now();
  const run: RunSummary = await client.workflow.execute(RECONCILIATION_WORKFLOW_TYPE, {
    taskQueue: cluster.env.TEMPORAL_TASK_QUEUE!,
    workflowId: `bench-reconciliation-${crypto.randomUUID()}`,
    args: [{ reportOnly: true }],
  });
  const wallS = (Date.now() - start) / 1000;
  const req = { annuaire: 0, sml: 0, dns: 0, ...run.requests };
  const total = req.annuaire + req.sml + req.dns;
  const floorS = req.annuaire / RATE;
  const rss = {
    api: cluster.apis[0]!.peakRssMb(),
    worker: cluster.workers[0]!.peakRssMb(),
    simulators: memoryMb(simulators.pid!, 'VmHWM'),
    'Temporal dev server': temporal.pid ? memoryMb(temporal.pid, 'VmHWM') : undefined,
  };
  const f = (n: number, d = 3) => n.toFixed(d);
  console.log(`
reconciliation of ${N} registered parties (+${others.length} lines and participants of others), ${run.lines} lines and ${run.participants} participants read
  found           ${JSON.stringify(run.counts)} (expected ${moved.length} moved-out)
  requests        annuaire ${req.annuaire}, sml ${req.sml}, dns ${req.dns}: ${f(total / N, 4)} per party (annuaire ${f(req.annuaire / N, 4)}; goal ≤ 0.05)
  wall time       ${f(wallS, 1)} s; floor (annuaire requests ÷ ${RATE}/s) ${f(floorS, 1)} s: ratio ${f(wallS / floorS, 2)} (goal ≤ 1.1)
  peak RSS (MB)   ${Object.entries(rss)
    .map(([k, v]) => `${k} ${v === undefined ? '?' : v.toFixed(0)}`)
    .join(', ')} (goal ≤ 512 each)
`);
  if ((run.counts['moved-out'] ?? 0) !== moved.length) process.exitCode = 1;
  await client.connection.close();
} finally {
  await cluster.close();
  await temporal.stop();
  simulators.disconnect();
}
