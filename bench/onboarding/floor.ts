// The floor's run (floor-workflow.ts on floor-worker.ts), phased as ours: start → the wait (timed); the `confirmed`
// signal to all (untimed, as our signing); the `decided` signal → done (timed). C requests at a time in each.
import { fork } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { loadConfig } from '../../platform/config';
import { memoryMb } from '../../bin/stack/service-process';
import { pool, sirens, waitUntil } from '../../bin/stack/onboard';
import { JobStatus, SiloEntryId, Siren } from '../../contract/search-attributes';
import { approvalSignal } from '../../contract/signals';
import type { ApprovalSignal } from '../../contract/signals';
import { cpuDelta, cpuSnapshot, type CpuSnapshot } from './cpu';
import { phaseResult, timed, type PhaseResult } from './phase';
import { countShape, meanHistorySize } from './shape';

export interface FloorOptions {
  client: Client;
  /** The service worker's environment: the floor worker takes its settings from it. */
  env: Record<string, string>;
  temporalPid: number;
  /** Whether PostgreSQL is Temporal's store (the real server): its CPU then counts. */
  postgres?: boolean;
  parties: number;
  concurrency: number;
  timeoutMs: number;
  say(msg: string): void;
}

export async function runFloor(o: FloorOptions) {
  const { client, parties: N, concurrency: C } = o;
  const taskQueue = `floor-${Date.now()}`;
  const worker = fork(path.join(path.dirname(fileURLToPath(import.meta.url)), 'floor-worker.ts'), [], {
    env: { ...process.env, ...o.env, TEMPORAL_TASK_QUEUE: taskQueue },
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    worker.stdout!.on('data', (d) => String(d).includes('floor worker running') && resolve());
    worker.once('exit', (code) => reject(new Error(`floor worker exited (${code})`)));
  });
  const ask = <T>(what: 'counts' | 'marks') =>
    new Promise<T>((resolve) => {
      worker.once('message', (m) => resolve(m as T));
      worker.send({ ask: what });
    });
  const ids = Array.from({ length: N }, (_, i) => `${taskQueue}-${i}`);
  const deadline = loadConfig(o.env).APPROVAL_DEADLINE; // ours waits as long
  const parties = sirens(N);
  const signal = (id: string, s: ApprovalSignal) => client.workflow.getHandle(id).signal(approvalSignal, s);
  // The bench process is the load generator: printed, left out of the CPU ratio.
  const cpu = () =>
    cpuSnapshot({
      temporal: [o.temporalPid],
      worker: [worker.pid!],
      bench: [process.pid],
      ...(o.postgres && { postgres: 'postgres' as const }),
    });
  try {
    const cpu0 = cpu();
    // Started as domain/jobs/jobs.ts starts ours: the same search attributes and a summary of the same form.
    const started = await timed(ids, C, async (workflowId, i) => {
      const entryId = crypto.randomUUID();
      await client.workflow.start('floorRegistration', {
        args: [deadline],
        taskQueue,
        workflowId,
        staticSummary: `French party registration — SIREN ${parties[i]!} (Boulangerie Exemple SAS)`,
        typedSearchAttributes: [
          { key: SiloEntryId, value: entryId },
          { key: JobStatus, value: 'RUN' },
          { key: Siren, value: parties[i]! },
        ],
      });
    });
    await waitUntil(
      async () => (await ask<{ waiting: number }>('counts')).waiting === N,
      o.timeoutMs,
      `${N} floor workflows to wait`,
    );
    const parkedRss = memoryMb(worker.pid!, 'VmHWM');
    const cpu1 = cpu();
    o.say(`floor: ${N} parked; confirming`);
    // Done when every floor workflow has upserted `submitted` (read from visibility: the floor has no store).
    const confirmStart = Date.now();
    await pool(ids, C, (id) => signal(id, { kind: 'confirmed' }));
    const submitted = `TaskQueue = '${taskQueue}' AND PartyState = 'submitted'`;
    await waitUntil(
      async () => (await client.workflow.count(submitted)).count === N,
      o.timeoutMs,
      `${N} floor confirmations`,
    );
    const confirmSeconds = (Date.now() - confirmStart) / 1000;
    o.say(`floor: ${N} confirmed; deciding`);
    const cpu2 = cpu();
    const decided = await timed(ids, C, (id) =>
      signal(id, { kind: 'decided', approved: true, decisionId: crypto.randomUUID() }),
    );
    await waitUntil(
      async () => (await ask<{ done: number }>('counts')).done === N,
      o.timeoutMs,
      `${N} floor workflows to finish`,
    );
    const cpu3 = cpu();
    const marks = await ask<{ waiting: [string, number][]; done: [string, number][] }>('marks');
    const waiting = new Map(marks.waiting);
    const done = new Map(marks.done);
    return {
      toWait: phaseResult(
        started,
        ids.map((id) => waiting.get(id)!),
      ),
      toRegistered: phaseResult(
        decided,
        ids.map((id) => done.get(id)!),
      ),
      confirmSeconds,
      parkedRss,
      peakRss: memoryMb(worker.pid!, 'VmHWM'),
      cpu: { toWait: cpuDelta(cpu0, cpu1), toRegistered: cpuDelta(cpu2, cpu3) },
      shape: countShape(await client.workflow.getHandle(ids[0]!).fetchHistory()),
      history: await meanHistorySize(client, ids),
    };
  } finally {
    worker.kill('SIGKILL');
  }
}

export type FloorResult = Awaited<ReturnType<typeof runFloor>>;

/** The floor run before ours and the one after, averaged: rates, latencies, CPU; memory and shape from the first. */
export function meanFloor(a: FloorResult, b: FloorResult): FloorResult {
  const phase = (x: PhaseResult, y: PhaseResult): PhaseResult => ({
    rate: (x.rate + y.rate) / 2,
    p50: (x.p50 + y.p50) / 2,
    p95: (x.p95 + y.p95) / 2,
    seconds: (x.seconds + y.seconds) / 2,
  });
  const cpu = (x: CpuSnapshot, y: CpuSnapshot) =>
    Object.fromEntries(Object.keys(x).map((k) => [k, (x[k]! + (y[k] ?? 0)) / 2]));
  return {
    ...a,
    confirmSeconds: (a.confirmSeconds + b.confirmSeconds) / 2,
    toWait: phase(a.toWait, b.toWait),
    toRegistered: phase(a.toRegistered, b.toRegistered),
    cpu: { toWait: cpu(a.cpu.toWait, b.cpu.toWait), toRegistered: cpu(a.cpu.toRegistered, b.cpu.toRegistered) },
  };
}
