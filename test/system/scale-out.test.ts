// Scale-out (issue 9): two API processes and two worker processes against one PostgreSQL schema and one Temporal
// server complete a batch of registrations, requests alternating between the APIs. Both workers must have run
// activities (Temporal's histories say which worker ran each), and no side effect may happen twice. Every third party
// states every level of invoicing address (SIREN, SIRET, SIRET + routing code, suffix): one directory line, one SML
// participant and one Directory entry per address, each routing code once; one mandate number, one decision and one
// directory holding per entry, one SMP record and one recorded line per address; one `party.state_changed` event per
// state change and one `job.completed` per job.
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startCluster, type Cluster } from '../../bin/stack/cluster';
import { readHistory } from '../support/histories';
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
import { everyAddressLevel } from '../../bin/stack/sample-parties';
import { participantOf, registeredFaults, worldOf } from '../support/addresses';
import { oncePerEntryFaults } from '../support/once-per-entry';

const N = 20;
let cluster: Cluster;
let connection: Connection;

beforeAll(async () => {
  cluster = await startCluster({ apis: 2, workers: 2, temporalAddress: inject('temporalAddress') });
  connection = await Connection.connect({ address: inject('temporalAddress') });
}, 240_000);

afterAll(async () => {
  await connection?.close();
  await cluster?.close();
}, 60_000);

const api = (i: number) => i % 2; // alternate between the two API processes
const rowsBy = async (sql: string) =>
  new Map((await cluster.db.query<{ k: string; v: unknown }>(sql)).rows.map((r) => [r.k, r.v]));
const addressIds = (o: Onboarding) => o.addresses?.ids ?? [o.siren];

describe(`scale-out: ${N} registrations on 2 APIs and 2 workers`, () => {
  it('complete with work on both workers and every side effect once', async () => {
    const parties = sirens(N);
    const started: Onboarding[] = await pool(parties, 8, (siren, i) =>
      createAndStart(cluster, siren, api(i), i % 3 === 0 ? everyAddressLevel(siren) : undefined),
    );
    await waitUntil(
      async () => (await jobCounts(cluster)).WAIT === N,
      120_000,
      `${N} registrations to wait for approval`,
    );
    await pool(started, 8, (o, i) => signAndConfirm(cluster, o.entryId, api(i + 1)));
    await waitUntil(
      async () => (await cluster.db.query(`SELECT 1 FROM entries WHERE state = 'submitted'`)).rowCount === N,
      60_000,
      `${N} submissions`,
    );
    await pool(started, 8, async (o, i) => {
      await approve(cluster, o.entryId, api(i));
    });
    await waitUntil(
      async () => {
        const n = await jobCounts(cluster);
        if (n.ERR) throw new Error(`${n.ERR} registrations failed`);
        return n.OK === N;
      },
      180_000,
      `${N} registrations to finish`,
    );
    expect((await cluster.db.query(`SELECT 1 FROM entries WHERE state = 'registered'`)).rowCount).toBe(N);

    // Work spread: activities ran on both worker processes (identity "pid@host").
    const client = new Client({ connection });
    const runs = (await pool(started, 8, (o) => readHistory(client, o.jobId!))).flatMap((h) => h.activities);
    const byPid = new Map<number, number>();
    for (const r of runs)
      byPid.set(Number(r.identity.split('@')[0]), (byPid.get(Number(r.identity.split('@')[0])) ?? 0) + 1);
    const workerPids = cluster.workers.map((w) => w.child.pid!);
    console.error(
      `[scale-out] ${runs.length} activities: ${workerPids.map((pid, i) => `worker ${i + 1} ran ${byPid.get(pid) ?? 0}`).join(', ')}`,
    );
    expect([...byPid.keys()].sort()).toEqual([...workerPids].sort());
    for (const pid of workerPids) expect(byPid.get(pid)).toBeGreaterThan(0);

    // External side effects once per address, and nothing else: one line of ours ever created per address (in
    // force), each routing code once, one SML participant and one Directory entry per address.
    const world = worldOf(cluster.sims, cluster.config);
    expect(started.flatMap((o) => registeredFaults(world, o))).toEqual([]);
    const addresses = started.flatMap(addressIds).sort();
    expect(addresses.length).toBe(N + 3 * Math.ceil(N / 3));
    expect(
      world.lines
        .filter((l) => l.matriculePlateforme === world.us)
        .map((l) => l.identifiantAdressage)
        .sort(),
    ).toEqual(addresses);
    expect(world.codes.map((c) => `${c.siret}/${c.identifiantRoutage}`).sort()).toEqual(
      started.flatMap((o) => o.addresses?.routingCodes.map((rc) => `${rc.siret}/${rc.id}`) ?? []).sort(),
    );
    const participants = addresses.map(participantOf).sort();
    expect(world.sml).toEqual(participants);
    expect(world.directory).toEqual(participants);

    // In the store: one mandate number, one decision and one directory holding per entry; one SMP record and one
    // recorded directory line (the directory's own) per address.
    const entryIds = started.map((o) => o.entryId).sort();
    const perEntry = await Promise.all(
      (['mandate_numbers', 'mandates', 'approval_decisions', 'directory_holdings'] as const).map((t) =>
        oncePerEntryFaults(cluster.db, t, entryIds),
      ),
    );
    expect(perEntry.flat()).toEqual([]);
    const smpRecords = await rowsBy(
      `SELECT entry_id AS k, array_agg(participant_id ORDER BY participant_id COLLATE "C") AS v FROM peppol_participants WHERE enabled GROUP BY entry_id`,
    );
    const recordedLines = await rowsBy(
      `SELECT entry_id AS k, array_agg(address_id || '=' || id_instance ORDER BY address_id COLLATE "C") AS v FROM directory_lines GROUP BY entry_id`,
    );
    const lineOf = (id: string) =>
      world.lines.find((l) => l.identifiantAdressage === id && l.matriculePlateforme === world.us);
    for (const o of started) {
      expect(smpRecords.get(o.entryId), o.siren).toEqual(addressIds(o).map(participantOf).sort());
      expect(recordedLines.get(o.entryId), o.siren).toEqual(
        [...addressIds(o)].sort().map((id) => `${id}=${lineOf(id)?.idInstance}`),
      );
    }
    expect((await cluster.db.query('SELECT 1 FROM peppol_participants')).rowCount).toBe(addresses.length);

    // The outbox: each state change reported once, in order; one job.completed per job.
    const states = await rowsBy(
      `SELECT entry_id AS k, array_agg(state ORDER BY id) AS v FROM entry_states GROUP BY entry_id`,
    );
    const reported = await rowsBy(
      `SELECT entry_id AS k, array_agg(payload->>'state' ORDER BY at, id) AS v FROM events WHERE kind = 'party.state_changed' GROUP BY entry_id`,
    );
    for (const id of entryIds) {
      expect(states.get(id), id).toEqual(['processing', 'submitted', 'completed', 'registered']);
      expect(reported.get(id), id).toEqual(states.get(id));
    }
    const completed = await rowsBy(
      `SELECT job_id AS k, count(*)::int AS v FROM events WHERE kind = 'job.completed' GROUP BY job_id`,
    );
    expect([...completed.keys()].sort()).toEqual(started.map((o) => o.jobId!).sort());
    expect([...completed.values()].every((v) => v === 1)).toBe(true);
  }, 420_000);
});
