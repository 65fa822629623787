// Chaos suite (issue 9): N registrations driven over HTTP through API and worker processes while workers are killed
// with SIGKILL at random moments (and replaced), the simulated Annuaire, SML and Peppol Directory answer 30 % 503s,
// let 10 % of requests time out (half of them after carrying them out, so a retry meets its own earlier work) and
// throw bursts of 429s, and the Temporal server (our own, persisted to SQLite) is restarted once. Every registration
// must end `registered`, with exactly one directory line in force for our matricule and one SML participant per
// SIREN, and no job left unfinished. One party's directory line is refused for good (422): that registration alone
// ends in `error`, with the reason.
// CHAOS_PARTIES sets N (small in `npm test`; `npm run test:chaos` runs 100).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownDevServer, startCluster, type Cluster } from '../../bin/stack/cluster';
import { readHistory, type JobHistory } from '../support/histories';
import { temporalWorkflowId } from '../../domain/jobs/jobs';
import {
  approve,
  createAndStart,
  jobCounts,
  pool,
  signAndConfirm,
  sirens,
  waitUntil,
  type Onboarding,
} from '../../bin/stack/onboard';
import type { Faults } from '../../simulators/faults';
import { SIM_NAMES, startMonkey, type SimName } from '../support/chaos-monkey';

const N = Number(process.env.CHAOS_PARTIES ?? 12);
const CONCURRENCY = 8;
/** The clients give up on a request after CLIENT_TIMEOUT_MS; held requests are held longer, so they do time out. */
const CLIENT_TIMEOUT_MS = 2_000;
const HELD_MS = 4_000;
const REFUSAL = 'informationAdressage.siren : SIREN fermé dans le répertoire Sirene (refus simulé)';
const say = (msg: string) => console.error(`[chaos ${new Date().toISOString().slice(11, 19)}] ${msg}`);

let dir: string;
let temporal: Awaited<ReturnType<typeof ownDevServer>>;
let cluster: Cluster;

beforeAll(async () => {
  if (!Number.isInteger(N) || N < 2) throw new Error('CHAOS_PARTIES must be an integer ≥ 2');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chaos-'));
  temporal = await ownDevServer(dir); // not the shared one: it is restarted mid-run
  cluster = await startCluster({
    temporalAddress: temporal.address,
    workers: 2,
    env: { ANNUAIRE_TIMEOUT_MS: String(CLIENT_TIMEOUT_MS), PEPPOL_TIMEOUT_MS: String(CLIENT_TIMEOUT_MS) },
  });
}, 240_000);

afterAll(async () => {
  await cluster?.close();
  await temporal?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** Retries a call the API refused with 503 (Temporal unreachable: nothing was done), as an integrator would. */
async function despite503<T>(fn: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (!/→ 503 /.test((err as Error).message) || i >= 60) throw err;
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
}

/** Waits until `done` holds for the job counts; fails at once if a job failed where none may. */
async function jobsUntil(
  done: (n: Record<string, number>) => boolean,
  what: string,
  timeoutMs: number,
  errorsAllowed = 0,
) {
  await waitUntil(
    async () => {
      const n = await jobCounts(cluster);
      if ((n.ERR ?? 0) > errorsAllowed) {
        const { rows } = await cluster.db.query(`SELECT id, faults FROM jobs WHERE status = 'ERR'`);
        throw new Error(
          `${n.ERR} registration(s) failed while waiting for ${what}: ${JSON.stringify(rows).slice(0, 1500)}`,
        );
      }
      return done(n);
    },
    timeoutMs,
    what,
    1_000,
  );
}

const count = async (sql: string, args: unknown[] = []) =>
  Number((await cluster.db.query<{ n: string }>(sql, args)).rows[0]!.n);

/** Lines of the Annuaire simulator in force today for a SIREN, on our matricule. */
function linesInForce(siren: string) {
  const today = new Date().toISOString().slice(0, 10);
  return cluster.sims.annuaire
    .lines()
    .filter((l) => l.siren === siren && l.dateDebutEffet <= today && (!l.dateFinEffet || l.dateFinEffet > today));
}
const ourLinesInForce = (siren: string) =>
  linesInForce(siren).filter((l) => l.matriculePlateforme === cluster.config.PA_MATRICULE);
const smlEntries = (siren: string) =>
  cluster.sims.sml.participants(cluster.config.SMP_ID).filter((p) => p.endsWith(`0225:${siren}`));

describe(`chaos: ${N} registrations`, () => {
  it(
    'end registered through worker kills, a Temporal restart and flaky external systems; a permanent refusal ends in error alone',
    async () => {
      const t0 = Date.now();
      const parties = sirens(N);
      const refused = parties[N - 1]!;
      const flaky: Faults = {
        errorRates: { 503: 0.3 },
        timeoutRate: 0.05,
        timeoutAfterWorkRate: 0.05,
        timeoutMs: HELD_MS,
        retryAfterSeconds: 1,
      };
      const background: Record<SimName, Faults[]> = {
        // The refusal is aimed at that party's line of ours only (the body names the SIREN and our matricule); it
        // stays to the end, and the SIREN must go back to the fictive platform's line.
        annuaire: [
          {
            status: 422,
            only: 'POST /ligne-annuaire',
            bodyIncludes: `"siren":"${refused}","matriculePlateforme":"${cluster.config.PA_MATRICULE}"`,
            detail: REFUSAL,
          },
          flaky,
        ],
        sml: [flaky],
        directory: [flaky],
      };
      const monkey = startMonkey(cluster, temporal, {
        background,
        killEveryMs: [4_000, 12_000],
        burstEveryMs: [5_000, 15_000],
        burst: { size: 20, ms: 3_000 },
        log: say,
      });
      const phaseMs = 120_000 + N * 3_000;

      let onboardings: Onboarding[];
      let unfinishedAtRestart = 0;
      try {
        onboardings = await pool(parties, CONCURRENCY, (siren, i) =>
          despite503(() => createAndStart(cluster, siren, i % cluster.apiUrls.length)),
        );
        await jobsUntil((n) => n.WAIT === N, `${N} registrations to wait for approval`, phaseMs);
        say(`${N} parked after ${((Date.now() - t0) / 1000).toFixed(0)} s; signing`);
        await pool(onboardings, CONCURRENCY, (o) => despite503(() => signAndConfirm(cluster, o.entryId)));
        await waitUntil(
          async () => (await count(`SELECT count(*) AS n FROM entries WHERE state = 'submitted'`)) === N,
          phaseMs,
          `${N} submissions`,
          1_000,
        );

        say('approving; the Temporal server restarts a few seconds in');
        const restart = new Promise((r) => setTimeout(r, 5_000)).then(async () => {
          const n = await jobCounts(cluster);
          unfinishedAtRestart = N - (n.OK ?? 0) - (n.ERR ?? 0);
          return monkey.restartTemporal();
        });
        await pool(onboardings, CONCURRENCY, (o) => despite503(() => approve(cluster, o.entryId)));
        say(
          `Temporal restarted in ${((await restart) / 1000).toFixed(1)} s with ${unfinishedAtRestart} registrations unfinished`,
        );
        await jobsUntil(
          (n) => (n.OK ?? 0) + (n.ERR ?? 0) === N,
          `${N} registrations to finish`,
          600_000 + N * 5_000,
          1,
        ).catch(async (err: Error) => {
          throw new Error(`${err.message}; still running: ${await pendingSteps()}`);
        });
      } finally {
        await monkey.stop();
      }
      const seconds = (Date.now() - t0) / 1000;

      // Every job finished: the refused party's in error with the directory's reason, all others registered.
      expect(await jobCounts(cluster)).toEqual({ OK: N - 1, ERR: 1 });
      const states = new Map(
        (await cluster.db.query<{ id: string; state: string }>('SELECT id, state FROM entries')).rows.map((r) => [
          r.id,
          r.state,
        ]),
      );
      const refusedJob = onboardings.find((o) => o.siren === refused)!;
      expect(states.get(refusedJob.entryId)).toBe('error');
      const {
        rows: [errJob],
      } = await cluster.db.query<{ id: string; faults: { provider: string; message: string }[] }>(
        `SELECT id, faults FROM jobs WHERE status = 'ERR'`,
      );
      expect(errJob!.id).toBe(refusedJob.jobId);
      expect(errJob!.faults).toContainEqual(
        expect.objectContaining({ provider: 'gov-fr.directory.register', message: expect.stringContaining(REFUSAL) }),
      );
      expect(linesInForce(refused).map((l) => l.matriculePlateforme)).toEqual(['9998']); // back on the fictive platform
      expect(smlEntries(refused)).toEqual([]);

      // Exactly one line in force on our matricule and one SML participant per registered SIREN; nothing else at the SML.
      const others = onboardings.filter((o) => o.siren !== refused);
      expect(
        others.filter((o) => states.get(o.entryId) !== 'registered').map((o) => [o.siren, states.get(o.entryId)]),
      ).toEqual([]);
      expect(
        others
          .filter((o) => ourLinesInForce(o.siren).length !== 1)
          .map((o) => [o.siren, ourLinesInForce(o.siren).length]),
      ).toEqual([]);
      expect(others.filter((o) => smlEntries(o.siren).length !== 1).map((o) => [o.siren, smlEntries(o.siren)])).toEqual(
        [],
      );
      expect(cluster.sims.sml.participants(cluster.config.SMP_ID)).toHaveLength(N - 1);
      expect(cluster.sims.directory.indexed()).toHaveLength(N - 1);

      // The chaos did happen: kills and the restart, faults answered by each simulator, steps that needed retries.
      const read = await histories(onboardings.map((o) => o.jobId!));
      const runs = read.flatMap((h) => h.activities);
      const retried = runs.filter((r) => r.attempt > 1);
      const seen = Object.fromEntries(SIM_NAMES.map((s) => [s, cluster.sims[s].faultsSeen()]));
      say(
        `${N} registrations in ${seconds.toFixed(0)} s: ${monkey.counts.kills} workers killed (${monkey.counts.failedWorkerStarts} failed restarts), ` +
          `Temporal restarted ${monkey.counts.temporalRestarts}×, ${monkey.counts.bursts} bursts of 429; injected ${JSON.stringify(seen)}; ` +
          `${retried.length} of ${runs.length} activities retried (max attempt ${Math.max(...runs.map((r) => r.attempt))}, ` +
          `${runs.filter((r) => r.lastFailure === 'timeout').length} right after their worker died), ` +
          `${read.reduce((n, h) => n + h.workflowTaskTimeouts, 0)} workflow tasks timed out`,
      );
      expect(monkey.counts.kills).toBeGreaterThanOrEqual(3);
      expect(monkey.counts.temporalRestarts).toBe(1);
      expect(unfinishedAtRestart).toBeGreaterThan(0);
      const injected = (what: string) => SIM_NAMES.reduce((sum, s) => sum + (seen[s]![what] ?? 0), 0);
      const timeouts = injected('timeout') + injected('timeout after work');
      expect([injected('503'), timeouts, injected('429')].map((n) => n > 0)).toEqual([true, true, true]);
      expect(retried.length).toBeGreaterThan(0);
    },
    900_000 + N * 20_000,
  );
});

/** The activities unfinished jobs are on: attempt, last failure, next attempt (for a failure message). */
async function pendingSteps(): Promise<string> {
  const { rows } = await cluster.db.query<{ id: string }>(`SELECT id FROM jobs WHERE completed_at IS NULL`);
  const connection = await Connection.connect({ address: temporal.address });
  try {
    const client = new Client({ connection });
    const steps = await pool(rows, 8, async ({ id }) => {
      const { raw } = await client.workflow.getHandle(temporalWorkflowId(id)).describe();
      return (raw.pendingActivities ?? []).map((a) => ({
        job: id,
        activity: a.activityType?.name,
        attempt: a.attempt,
        lastFailure: a.lastFailure?.message,
        nextAttemptIn: a.nextAttemptScheduleTime?.seconds
          ? Number(a.nextAttemptScheduleTime.seconds) - Math.floor(Date.now() / 1000)
          : undefined,
      }));
    });
    return JSON.stringify(steps.flat());
  } finally {
    await connection.close();
  }
}

async function histories(jobIds: string[]): Promise<JobHistory[]> {
  const connection = await Connection.connect({ address: temporal.address });
  try {
    const client = new Client({ connection });
    return await pool(jobIds, 8, (id) => readHistory(client, id));
  } finally {
    await connection.close();
  }
}
