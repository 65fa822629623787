// Chaos suite (issue 9): N registrations driven over HTTP through API and worker processes while workers are killed
// with SIGKILL at random moments (and replaced), the simulated Annuaire, SML and Peppol Directory answer 30 % 503s,
// let 10 % of requests time out (half of them after carrying them out, so a retry meets its own earlier work) and
// throw bursts of 429s, and the Temporal server (our own, persisted to SQLite) is restarted once. (Each call is sent up
// to 3 times within a step, integrations/outbound-http.ts: the steps still fail and are retried, as the summary shows.) Every third party
// states every level of invoicing address (SIREN, SIRET, SIRET + routing code, suffix: meta fr-invoicing-addresses).
// Every registration must end `registered`, with exactly one directory line of our matricule ever created per
// address (and in force), each routing code created once, one SML participant and one Directory entry per address,
// and no job left unfinished. Half the parties with several addresses are then unregistered, still under the chaos:
// none of their lines stays in force, their SIREN is back on the fictive platform, nothing is left at the SML or in
// the Directory. One party's directory line is refused for good (422): that registration alone ends in `error`, with
// the reason.
// CHAOS_PARTIES sets N (small in `npm test`; `npm run test:chaos` runs 100).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownDevServer, startCluster, type Cluster } from '../../bin/stack/cluster';
import { readHistory, waitSummary, type JobHistory } from '../support/histories';
import { temporalWorkflowId } from '../../domain/jobs/jobs';
import {
  approve,
  createAndStart,
  jobCounts,
  pool,
  signAndConfirm,
  sirens,
  startUnregistration,
  waitUntil,
  type Onboarding,
} from '../../bin/stack/onboard';
import { everyAddressLevel } from '../../bin/stack/sample-parties';
import { goneFaults, participantOf, registeredFaults, worldOf } from '../support/addresses';
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

/** Every third party states every level of invoicing address; the refused one (the last) its SIREN alone. */
const severalAddresses = (i: number) => i % 3 === 0 && i < N - 1;
/** Half of those are unregistered once all registrations have ended. */
const unregistered = (i: number) => i % 6 === 0 && i < N - 1;

describe(`chaos: ${N} registrations`, () => {
  it(
    'end registered, every address once, through worker kills, a Temporal restart and flaky external systems; a permanent refusal ends in error alone; unregistrations leave nothing',
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
      let registeredAt = 0;
      let registeredWorld!: ReturnType<typeof worldOf>;
      let unregistrations: string[] = [];
      const leaving = () => onboardings.filter((_, i) => unregistered(i));
      try {
        onboardings = await pool(parties, CONCURRENCY, (siren, i) =>
          despite503(() =>
            createAndStart(
              cluster,
              siren,
              i % cluster.apiUrls.length,
              severalAddresses(i) ? everyAddressLevel(siren) : undefined,
            ),
          ),
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
          throw new Error(`${err.message}; still running: ${await pendingSteps(onboardings)}`);
        });
        registeredAt = (Date.now() - t0) / 1000;
        registeredWorld = worldOf(cluster.sims, cluster.config);

        say(`${N} registrations ended after ${registeredAt.toFixed(0)} s; unregistering ${leaving().length}`);
        unregistrations = await pool(leaving(), CONCURRENCY, (o) =>
          despite503(() => startUnregistration(cluster, o.entryId)),
        );
        await jobsUntil(
          (n) => (n.OK ?? 0) + (n.ERR ?? 0) === N + leaving().length,
          `${leaving().length} unregistrations to finish`,
          300_000 + leaving().length * 10_000,
          1,
        ).catch(async (err: Error) => {
          throw new Error(`${err.message}; still running: ${await pendingSteps(onboardings)}`);
        });
      } finally {
        await monkey.stop();
      }
      const seconds = (Date.now() - t0) / 1000;

      // Every job finished: the refused party's in error with the directory's reason, all others registered, and
      // those unregistered void.
      const gone = leaving();
      expect(await jobCounts(cluster)).toEqual({ OK: N - 1 + gone.length, ERR: 1 });
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
      const others = onboardings.filter((o) => o.siren !== refused);
      const staying = others.filter((o) => !gone.includes(o));
      expect(
        onboardings
          .map((o) => [o.siren, states.get(o.entryId)])
          .filter(
            ([siren, state]) =>
              state !== (siren === refused ? 'error' : gone.some((o) => o.siren === siren) ? 'void' : 'registered'),
          ),
      ).toEqual([]);

      // Once every registration had ended: per address, one line of ours ever created and in force, each routing
      // code once, one SML participant and one Directory entry; the refused party back on the fictive platform.
      const addresses = (os: Onboarding[]) => os.reduce((n, o) => n + (o.addresses?.ids.length ?? 1), 0);
      expect(others.flatMap((o) => registeredFaults(registeredWorld, o))).toEqual([]);
      expect(goneFaults(registeredWorld, { siren: refused }, 'none')).toEqual([]);
      expect(registeredWorld.sml).toHaveLength(addresses(others)); // nothing else at the SML, nor in the Directory
      expect(registeredWorld.directory).toHaveLength(addresses(others));

      // At the end: the same for those still registered (no late effect of an attempt thought dead); nothing left of
      // those unregistered, each of their lines created once and ended, the SIREN back on the fictive platform.
      const end = worldOf(cluster.sims, cluster.config);
      expect(staying.flatMap((o) => registeredFaults(end, o))).toEqual([]);
      expect(gone.flatMap((o) => goneFaults(end, o, 'each address once'))).toEqual([]);
      expect(goneFaults(end, { siren: refused }, 'none')).toEqual([]);
      expect(end.sml).toHaveLength(addresses(staying));
      expect(end.directory).toHaveLength(addresses(staying));
      // Our SMP: one enabled record per address of the parties registered, only disabled ones for the others; our
      // store's lines per address match the directory's.
      const { rows: smp } = await cluster.db.query<{ entry_id: string; participant_id: string; enabled: boolean }>(
        'SELECT entry_id, participant_id, enabled FROM peppol_participants',
      );
      const enabledOf = (o: Onboarding) =>
        smp
          .filter((r) => r.entry_id === o.entryId && r.enabled)
          .map((r) => r.participant_id)
          .sort();
      const participantsOf = (o: Onboarding) => (o.addresses?.ids ?? [o.siren]).map(participantOf).sort();
      expect(staying.map(enabledOf)).toEqual(staying.map(participantsOf));
      expect(gone.flatMap(enabledOf)).toEqual([]);
      const { rows: held } = await cluster.db.query<{ entry_id: string; address_id: string; id_instance: string }>(
        'SELECT entry_id, address_id, id_instance FROM directory_lines',
      );
      const ourLine = (address: string) =>
        end.lines.find((l) => l.identifiantAdressage === address && l.matriculePlateforme === end.us)?.idInstance;
      expect(
        held
          .map((r) => [r.address_id, Number(r.id_instance), ourLine(r.address_id)])
          .filter(([, stored, actual]) => stored !== actual),
      ).toEqual([]);
      expect(held.map((r) => r.address_id).sort()).toEqual(
        staying.flatMap((o) => o.addresses?.ids ?? [o.siren]).sort(),
      );

      // The chaos did happen: kills and the restart, faults answered by each simulator, steps that needed retries.
      const read = await histories([...onboardings.map((o) => o.jobId!), ...unregistrations]);
      const runs = read.flatMap((h) => h.activities);
      const retried = runs.filter((r) => r.attempt > 1);
      const seen = Object.fromEntries(SIM_NAMES.map((s) => [s, cluster.sims[s].faultsSeen()]));
      say(
        `${N} registrations (${addresses(onboardings)} addresses) in ${registeredAt.toFixed(0)} s, ` +
          `${gone.length} unregistrations by ${seconds.toFixed(0)} s: ${monkey.counts.kills} workers killed (${monkey.counts.failedWorkerStarts} failed restarts), ` +
          `Temporal restarted ${monkey.counts.temporalRestarts}×, ${monkey.counts.bursts} bursts of 429; injected ${JSON.stringify(seen)}; ` +
          `${retried.length} of ${runs.length} activities retried (max attempt ${Math.max(...runs.map((r) => r.attempt))}, ` +
          `${runs.filter((r) => r.lastFailure === 'timeout').length} right after their worker died), ` +
          `${read.reduce((n, h) => n + h.workflowTaskTimeouts, 0)} workflow tasks timed out; waits in the task queues ` +
          `(median / 95 % / slowest): workflow tasks ${waitSummary(read.flatMap((h) => h.waits.workflowTask))}, ` +
          `activities ${waitSummary(read.flatMap((h) => h.waits.activity))}; the most tried: ` +
          [...runs]
            .sort((a, b) => b.attempt - a.attempt)
            .slice(0, 5)
            .map((r) => `${r.type} ${r.attempt}× (last: ${r.lastFailure ?? '?'})`)
            .join(', '),
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

/**
 * The activities unfinished jobs are on: attempt, last failure, next attempt, and how many invoicing addresses the
 * job's party states (for a failure message).
 */
async function pendingSteps(onboardings: Onboarding[]): Promise<string> {
  const addressesOf = (jobId: string) => {
    const o = onboardings.find((x) => x.jobId === jobId);
    return o && (o.addresses?.ids.length ?? 1);
  };
  const { rows } = await cluster.db.query<{ id: string }>(`SELECT id FROM jobs WHERE completed_at IS NULL`);
  const connection = await Connection.connect({ address: temporal.address });
  try {
    const client = new Client({ connection });
    const steps = await pool(rows, 8, async ({ id }) => {
      const { raw } = await client.workflow.getHandle(temporalWorkflowId(id)).describe();
      return (raw.pendingActivities ?? []).map((a) => ({
        job: id,
        addresses: addressesOf(id),
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
