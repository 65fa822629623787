// A campaign's registrations run below a single registration's priority: while a 2,000-row campaign is launching and
// a backlog of its approved registrations waits for the directory's pace, another workspace's company approved
// after them is registered first, within a minute of its approval.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSiren } from '../../bin/stack/sample-parties';
import { pool } from '../../bin/stack/onboard';
import { createWorkspace } from '../../platform/store/workspaces';
import { asWorkspace, eventually, startHarness, type Harness, type WorkerHarness } from '../support/harness';
import { approve, newParty, signInApp, startRegistration } from '../support/registration';
import { jobWhen } from '../support/jobs';

const ROWS = 2_000;
/** Campaign registrations signed and approved before the single one: a backlog of ~80 s at one step a second. */
const BACKLOG = 80;

let h: WorkerHarness;
let other: Harness;
beforeAll(async () => {
  h = await startHarness({
    env: {
      ANNUAIRE_STEPS_PER_S: '1', // the directory's pace, where the backlog waits
      CAMPAIGN_LAUNCH_PER_S: '40',
      CAMPAIGN_ANNUAIRE_RPS: '1000',
      CAMPAIGN_DNS_RPS: '1000',
    },
  });
  const ws = await createWorkspace(h.db, 'another integrator');
  other = asWorkspace(h, await h.newKey(['entries:rw', 'jobs:rw'], ws.id), ws.id);
}, 60_000);
afterAll(() => h?.close(), 60_000);

const campaign = async (id: string) => (await h.api('GET', `/campaigns/v1/campaigns/${id}`)).body;

describe('a campaign’s priority', () => {
  it('lets another workspace’s registration through its backlog: registered ≤ 60 s after approval', async () => {
    // The other integrator's company, signed and waiting for its approval.
    const single = await newParty(other);
    const singleJob = await startRegistration(other, single);
    await jobWhen(other, singleJob, ['WAIT']);
    await signInApp(other, single);

    const header = 'siren;name;signer_given_name;signer_surname;signer_role;contact_email;signer_id_number';
    const rows = Array.from(
      { length: ROWS },
      (_, i) => `${makeSiren()};Société ${i};Élodie;Martin;Présidente;c${i}@example.fr;X4RTBPFW4`,
    );
    const res = await fetch(`${h.baseUrl}/campaigns/v1/campaigns`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': 'text/csv' },
      body: `${header}\n${rows.join('\n')}\n`,
    });
    expect(res.status).toBe(201);
    const id = ((await res.json()) as { id: string }).id;
    await eventually(async () => (await campaign(id)).status === 'checked', 60_000, 'the dry run');
    expect((await h.api('POST', `/campaigns/v1/campaigns/${id}/start`)).body.status).toBe('running');

    // The campaign's first signers sign; the operators approve them: their directory steps queue at its pace.
    const first = await eventually(
      async () => {
        const list = (await h.api('GET', `/campaigns/v1/campaigns/${id}/rows?limit=${BACKLOG}`)).body.list as {
          entry_id?: string;
        }[];
        const ids = list.map((r) => r.entry_id).filter((x): x is string => !!x);
        return ids.length === BACKLOG ? ids : undefined;
      },
      60_000,
      'the first rows launched',
    );
    await eventually(
      async () => (await campaign(id)).registrations.states.processing >= BACKLOG,
      60_000,
      'their mandates issued',
    );
    await pool(first, 8, (entryId) => signInApp(h, entryId));
    await pool(first, 8, async (entryId) => {
      await eventually(
        async () => (await h.api('GET', `/silo/v1/entries/${entryId}`)).body.state === 'submitted',
        30_000,
      );
      await approve(h, entryId);
    });

    const approvedAt = Date.now();
    await approve(other, single);
    const done = await jobWhen(other, singleJob, ['OK', 'ERR'], 90_000);
    const seconds = (Date.now() - approvedAt) / 1000;
    expect(done.status).toBe('OK');
    expect((await other.api('GET', `/silo/v1/entries/${single}`)).body.state).toBe('registered');
    const now = await campaign(id);
    console.error(
      `[priority] registered ${seconds.toFixed(1)} s after its approval; campaign: ${JSON.stringify(now.registrations)}`,
    );
    expect(seconds).toBeLessThanOrEqual(60);
    // It went ahead of the backlog: most of the campaign's registrations approved before it are still waiting (in
    // the order of their approvals it would have come after all of them, ~80 s).
    expect(now.status).toBe('running');
    expect(now.registrations.states.registered ?? 0).toBeLessThan(BACKLOG / 2);

    expect((await h.api('POST', `/campaigns/v1/campaigns/${id}/cancel`)).body.status).toBe('cancelled');
  }, 300_000);
});
