// A campaign started on the production topology (an API and two worker processes, PostgreSQL, a Temporal server)
// goes on through a worker killed mid-batch and a Temporal restart: every row ends with exactly one entry and one
// registration, each registration's mandate issued once, nothing made twice; the workers share its steps.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownDevServer, startCluster, type Cluster } from '../../bin/stack/cluster';
import { makeSiren } from '../../bin/stack/sample-parties';
import { waitUntil } from '../../bin/stack/onboard';

const ROWS = 200;
const say = (msg: string) => console.error(`[campaign ${new Date().toISOString().slice(11, 19)}] ${msg}`);

let dir: string;
let temporal: Awaited<ReturnType<typeof ownDevServer>>;
let cluster: Cluster;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campaign-restarts-'));
  temporal = await ownDevServer(dir); // restarted mid-run
  cluster = await startCluster({
    temporalAddress: temporal.address,
    workers: 2,
    env: { CAMPAIGN_LAUNCH_PER_S: '40', CAMPAIGN_ANNUAIRE_RPS: '1000', CAMPAIGN_DNS_RPS: '1000' },
  });
}, 240_000);

afterAll(async () => {
  await cluster?.close();
  await temporal?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}, 60_000);

async function api(method: string, p: string, body?: string) {
  const res = await fetch(`${cluster.apiUrls[0]}${p}`, {
    method,
    headers: { authorization: `Bearer ${cluster.apiKey}`, ...(body && { 'content-type': 'text/csv' }) },
    ...(body && { body }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const count = async (sql: string, args: unknown[]) =>
  Number((await cluster.db.query<{ n: string }>(sql, args)).rows[0]!.n);

describe('a campaign through restarts', () => {
  it('registers each row once through a worker killed mid-batch and a Temporal restart', async () => {
    const header = 'siren;name;signer_given_name;signer_surname;signer_role;contact_email';
    const rows = Array.from({ length: ROWS }, (_, i) => {
      const siren = makeSiren();
      return `${siren};Société ${i};Élodie;Martin;Présidente;contact.${i}@example.fr`;
    });
    const created = await api('POST', '/campaigns/v1/campaigns', `${header}\n${rows.join('\n')}\n`);
    expect(created.status).toBe(201);
    const id: string = created.body.id;
    await waitUntil(
      async () => (await api('GET', `/campaigns/v1/campaigns/${id}`)).body.status === 'checked',
      60_000,
      'the dry run',
    );
    expect((await api('POST', `/campaigns/v1/campaigns/${id}/start`)).body.status).toBe('running');

    // Mid-batch: the first batch's entries are being made.
    const entriesOf = () => count(`SELECT count(*) AS n FROM entries WHERE key LIKE $1`, [`campaign:${id}:%`]);
    await waitUntil(async () => (await entriesOf()) >= 20, 60_000, 'the first entries');
    say(`killing the worker with ${await entriesOf()} entries made`);
    await cluster.workers[0]!.kill('SIGKILL');
    await cluster.startWorker();
    await waitUntil(async () => (await entriesOf()) >= 100, 120_000, 'half the entries');
    say(`restarting Temporal with ${await entriesOf()} entries made`);
    await temporal.restart();

    await waitUntil(
      async () => (await api('GET', `/campaigns/v1/campaigns/${id}`)).body.registrations?.launched === ROWS,
      180_000,
      'every row registered',
    );
    // Each row's registration reaches the signer's wait: its mandate issued once.
    await waitUntil(
      async () =>
        (await count(`SELECT count(*) AS n FROM jobs WHERE key LIKE $1 AND status = 'WAIT'`, [`campaign:${id}:%`])) ===
        ROWS,
      180_000,
      'every registration waiting for its signer',
    );
    expect(await entriesOf()).toBe(ROWS);
    expect(await count(`SELECT count(*) AS n FROM jobs WHERE key LIKE $1`, [`campaign:${id}:%`])).toBe(ROWS);
    expect(
      await count(`SELECT count(*) AS n FROM mandates m JOIN entries e ON e.id = m.entry_id WHERE e.key LIKE $1`, [
        `campaign:${id}:%`,
      ]),
    ).toBe(ROWS);
    const c = (await api('GET', `/campaigns/v1/campaigns/${id}`)).body;
    expect(c.registrations).toMatchObject({ launched: ROWS, running: ROWS, states: { processing: ROWS } });

    // Scaled out: the second worker, alive all along, worked beside the first and beside its replacement.
    const client = new Client({ connection: await Connection.connect({ address: temporal.address }) });
    const { rows: jobs } = await cluster.db.query<{ id: string }>(`SELECT id FROM jobs WHERE key LIKE $1`, [
      `campaign:${id}:%`,
    ]);
    const workers = new Set<string>();
    for (const job of jobs) {
      const history = await client.workflow.getHandle(`job-${job.id}`).fetchHistory();
      for (const e of history.events ?? []) {
        const identity = e.activityTaskStartedEventAttributes?.identity;
        if (identity) workers.add(identity);
      }
    }
    await client.connection.close();
    expect(workers.size, [...workers].join(', ')).toBe(3);
  }, 600_000);
});
