// transform/v1 over real HTTP: definitions (built-in and own) and jobs running on the real dev server.
import { testSealKey } from '../support/seal-key';
import crypto from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app';
import { startQueuedJobs } from '../../domain/jobs/jobs';
import { closeAbandonedJobs } from '../../domain/jobs/job-sweeper';
import { awaitJobSettled } from '../../domain/jobs/await-job';
import { setJobStatus } from '../../platform/store/jobs';
import { recordJob } from '../../domain/jobs/record-job';
import { REGISTRATION_WORKFLOW_ID, UNREGISTRATION_WORKFLOW_ID } from '../../domain/jobs/builtins';
import { eventually, log, startHarness, type Harness } from '../support/harness';
import { createEntry, createWorkflow, jobWhen, setState, step } from '../support/jobs';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('workflows', () => {
  it('lists the built-in registration and unregistration definitions, step for step', async () => {
    const list = (await h.api('GET', '/transform/v1/workflows')).body.list;
    const reg = list.find((w: any) => w.id === REGISTRATION_WORKFLOW_ID);
    expect(reg.steps.map((s: any) => [s.name, s.provider, s.config])).toEqual([
      ['Sign PPF agreement', 'gov-fr.agreement.sign', undefined],
      ['Set state', 'silo.state', { state: 'processing' }],
      ['Wait for PPF agreement upload', 'gov-fr.agreement.wait.approval', undefined],
      ['Set state', 'silo.state', { state: 'completed' }],
      ['Register party in Directory', 'gov-fr.directory.register', undefined],
      [
        'Register party on Peppol',
        'peppol.register',
        { doc_groups: ['france'], visibility: 'smp+sml+peppol', directory: true, disable: false },
      ],
      ['Set state', 'silo.state', { state: 'registered' }],
    ]);
    expect(reg.rescue.map((s: any) => [s.provider, s.config])).toEqual([['silo.state', { state: 'error' }]]);
    // The public API names a step's provider `action`: both are given.
    expect([...reg.steps, ...reg.rescue].every((s: any) => s.action === s.provider)).toBe(true);
    const unreg = (await h.api('GET', `/transform/v1/workflows/${UNREGISTRATION_WORKFLOW_ID}`)).body;
    expect(unreg.steps.map((s: any) => s.provider)).toEqual([
      'peppol.unregister',
      'gov-fr.directory.disable',
      'silo.state',
    ]);
    expect(unreg.steps[2].config).toEqual({ state: 'void' });
    expect(unreg.rescue[0].config).toEqual({ state: 'error' });
  });

  it('stores an own definition (accepting `action` for `provider`) and refuses to reuse its id', async () => {
    const id = crypto.randomUUID();
    const def = {
      name: 'Mine',
      schema: 'org/party',
      steps: [{ id: crypto.randomUUID(), name: 'S', action: 'silo.state', config: { state: 'processing' } }],
    };
    const r = await h.api('PUT', `/transform/v1/workflows/${id}`, def);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id,
      name: 'Mine',
      version: '1',
      rescue: [],
      steps: [{ provider: 'silo.state', action: 'silo.state' }],
    });
    expect((await h.api('GET', `/transform/v1/workflows/${id}`)).body).toEqual(r.body);
    expect((await h.api('PUT', `/transform/v1/workflows/${id}`, def)).status).toBe(409);
    expect((await h.api('PUT', `/transform/v1/workflows/${REGISTRATION_WORKFLOW_ID}`, def)).body.detail).toMatch(
      /built in/,
    );
  });

  it('rejects invalid definitions with the field at fault', async () => {
    const put = (body: unknown) => h.api('PUT', `/transform/v1/workflows/${crypto.randomUUID()}`, body);
    const base = { name: 'W', schema: 'org/party', steps: [setState('processing')] };
    expect((await put({ ...base, schema: 'bill/invoice' })).body.detail).toMatch(/only org\/party/);
    expect((await put({ ...base, steps: [] })).body.detail).toMatch(/at least one step/);
    expect((await put({ ...base, steps: [step('silo.state', { state: 'flying' })] })).body.detail).toMatch(
      /steps\.0\.config\.state/,
    );
    const s = setState('processing');
    expect((await put({ ...base, steps: [s, s] })).body.detail).toMatch(/used twice/);
    expect((await put({ ...base, steps: [{ id: 'x', name: 'n', provider: 'silo.state' }] })).status).toBe(400);
    expect((await put({ ...base, extra: 1 })).body.detail).toMatch(/unknown field/);
    expect((await put({ ...base, steps: [{ ...setState('processing'), action: 'silo.other' }] })).body.detail).toMatch(
      /steps\.0\.action.*provider and action differ/,
    );
    expect((await put({ ...base, steps: [{ id: crypto.randomUUID(), name: 'n' }] })).body.detail).toMatch(
      /provider \(or action\) is required/,
    );
    const wait = () => step('gov-fr.agreement.wait.approval');
    expect((await put({ ...base, steps: [wait(), setState('completed'), wait()] })).body.detail).toMatch(
      /steps\.2\.provider.*at most once/,
    );
    expect((await put({ ...base, rescue: [wait()] })).body.detail).toMatch(
      /rescue\.0\.provider.*cannot wait for approval/,
    );
  });
});

describe('jobs', () => {
  it('runs a job (202), finds it by id and by key, and refuses a reused id or key', async () => {
    const entryId = await createEntry(h);
    const wf = await createWorkflow(h, [setState('processing')]);
    const id = crypto.randomUUID();
    const r = await h.api('PUT', `/transform/v1/jobs/${id}`, {
      workflow_id: wf,
      silo_entry_id: entryId,
      key: `job-${id}`,
      tags: ['import'],
    });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({
      id,
      key: `job-${id}`,
      workflow_id: wf,
      silo_entry_id: entryId,
      tags: ['import'],
      faults: [],
    });
    const done = await jobWhen(h, id, ['OK', 'ERR']);
    expect(done.status).toBe('OK');
    expect((await h.api('GET', `/transform/v1/jobs/key/job-${id}`)).body.id).toBe(id);
    expect((await h.api('PUT', `/transform/v1/jobs/${id}`, { workflow_id: wf, silo_entry_id: entryId })).status).toBe(
      409,
    );
    const again = await h.api('POST', '/transform/v1/jobs', {
      workflow_id: wf,
      silo_entry_id: entryId,
      key: `job-${id}`,
    });
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/key "job-/);
  });

  it('with ?wait=N answers once the job ends or parks (POST and PUT), and refuses a wait above 60 s before starting', async () => {
    const [a, b, c] = [await createEntry(h), await createEntry(h), await createEntry(h)];
    const ends = await createWorkflow(h, [setState('processing')]);
    const ended = await h.api('POST', '/transform/v1/jobs?wait=30', { workflow_id: ends, silo_entry_id: a });
    expect(ended.status).toBe(202);
    expect(ended.body).toMatchObject({ status: 'OK', intents: [{ completed: true }] });
    const parks = await h.api('PUT', `/transform/v1/jobs/${crypto.randomUUID()}?wait=30`, {
      workflow_id: REGISTRATION_WORKFLOW_ID,
      silo_entry_id: b,
    });
    expect(parks.status).toBe(202);
    expect(parks.body.status).toBe('WAIT');
    const refused = await h.api('POST', '/transform/v1/jobs?wait=61', { workflow_id: ends, silo_entry_id: c });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/wait.*at most 60 seconds/);
    expect(
      (await h.api('POST', '/transform/v1/jobs?wait=soon', { workflow_id: ends, silo_entry_id: c })).body.detail,
    ).toMatch(/wait/);
    expect((await h.api('GET', `/silo/v1/entries/${c}`)).body.state).toBeUndefined(); // nothing was started
  });

  it('waits for a job that does not move only as long as asked, and stops when the caller leaves', async () => {
    const definition = { steps: [setState('processing')], rescue: [] };
    const queued = async () => {
      const r = await recordJob(h.db, {
        id: crypto.randomUUID(),
        workspaceId: h.workspaceId,
        workflowId: crypto.randomUUID(),
        workflowType: 'runDefinition',
        entryId: await createEntry(h),
        docSchema: 'org/party',
        definition,
        args: {},
        tags: [],
        registers: false,
      });
      return (r as { job: { id: string } }).job.id; // recorded, never started: it stays QUEUED
    };
    const timed = async (run: () => Promise<void>) => {
      const t0 = Date.now();
      await run();
      return Date.now() - t0;
    };
    const still = await queued();
    const waited = await timed(() => awaitJobSettled(h.db, h.workspaceId, still, 2, new AbortController().signal));
    expect(waited).toBeGreaterThanOrEqual(2000);
    expect(waited).toBeLessThan(3500);
    const another = await queued();
    const left = new AbortController();
    setTimeout(() => left.abort(), 300);
    expect(await timed(() => awaitJobSettled(h.db, h.workspaceId, another, 30, left.signal))).toBeLessThan(1500);
    const parked = await queued();
    setTimeout(() => void setJobStatus(h.db, parked, 'WAIT'), 300);
    expect(
      await timed(() => awaitJobSettled(h.db, h.workspaceId, parked, 30, new AbortController().signal)),
    ).toBeLessThan(2000);
  });

  it('404 for an unknown workflow, entry or job; 400 for bad bodies', async () => {
    const entryId = await createEntry(h);
    expect(
      (await h.api('POST', '/transform/v1/jobs', { workflow_id: crypto.randomUUID(), silo_entry_id: entryId })).body
        .detail,
    ).toMatch(/workflow .* not found/);
    expect(
      (
        await h.api('POST', '/transform/v1/jobs', {
          workflow_id: REGISTRATION_WORKFLOW_ID,
          silo_entry_id: crypto.randomUUID(),
        })
      ).status,
    ).toBe(404);
    expect((await h.api('GET', `/transform/v1/jobs/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await h.api('POST', '/transform/v1/jobs', { workflow_id: REGISTRATION_WORKFLOW_ID })).status).toBe(400);
    expect(
      (
        await h.api('POST', '/transform/v1/jobs', {
          workflow_id: REGISTRATION_WORKFLOW_ID,
          silo_entry_id: entryId,
          args: { a: 1 },
        })
      ).status,
    ).toBe(400);
  });

  it("does not run a job on another workspace's entry or show its job", async () => {
    const entryId = await createEntry(h);
    const wf = await createWorkflow(h, [setState('processing')]);
    const other = await h.newKey();
    expect(
      (
        await h.api(
          'POST',
          '/transform/v1/jobs',
          { workflow_id: REGISTRATION_WORKFLOW_ID, silo_entry_id: entryId },
          other,
        )
      ).status,
    ).toBe(404);
    const { body: job } = await h.api('POST', '/transform/v1/jobs', { workflow_id: wf, silo_entry_id: entryId });
    expect((await h.api('GET', `/transform/v1/jobs/${job.id}`, undefined, other)).status).toBe(404);
  });

  it('accepts a job while Temporal is unreachable (202, QUEUED) and the sweeper starts it once it is back', async () => {
    const entryId = await createEntry(h);
    const wf = await createWorkflow(h, [setState('processing')]);
    const dead = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1', connectTimeout: 500 }) });
    const app = createApp({ db: h.db, log, temporal: dead, config: h.config, box: h.box, sealKey: testSealKey() });
    const server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const port = (server.address() as AddressInfo).port;
      const res = await fetch(`http://127.0.0.1:${port}/transform/v1/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ workflow_id: wf, silo_entry_id: entryId }),
      });
      expect(res.status).toBe(202);
      const job = (await res.json()) as { id: string; status: string };
      expect(job.status).toBe('QUEUED');

      // A campaign's job (its key says so) left queued keeps the campaign's lower priority when the sweeper starts it.
      const campaignEntry = await createEntry(h);
      const queuedCampaignJob = await fetch(`http://127.0.0.1:${port}/transform/v1/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          workflow_id: wf,
          silo_entry_id: campaignEntry,
          key: `campaign:${crypto.randomUUID()}:2`,
        }),
      });
      const { id: campaignJobId } = (await queuedCampaignJob.json()) as { id: string };

      const deps = { db: h.db, log, temporal: h.client, config: h.config };
      expect(await startQueuedJobs(deps, 0)).toBeGreaterThanOrEqual(2);
      expect((await jobWhen(h, job.id, ['OK', 'ERR'])).status).toBe('OK');
      const priorityOf = async (id: string) => (await h.client.workflow.getHandle(`job-${id}`).describe()).priority;
      expect((await priorityOf(campaignJobId))?.priorityKey).toBe(4);
      expect((await priorityOf(job.id))?.priorityKey).not.toBe(4);
      expect(await startQueuedJobs(deps, 0)).toBe(0); // nothing left, and the job did not run twice
      expect((await h.api('GET', `/silo/v1/entries/${entryId}`)).body.state).toBe('processing');
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('a job whose workflow an operator terminated is closed ERR, and its entry takes a new job', async () => {
    const entryId = await createEntry(h);
    const wf = await createWorkflow(h, [step('gov-fr.agreement.wait.approval')]);
    const { body: job } = await h.api('POST', '/transform/v1/jobs', { workflow_id: wf, silo_entry_id: entryId });
    await jobWhen(h, job.id, ['WAIT']);
    expect((await h.api('POST', '/transform/v1/jobs', { workflow_id: wf, silo_entry_id: entryId })).status).toBe(409);
    await h.client.workflow.getHandle(`job-${job.id}`).terminate('operator test');
    const deps = { db: h.db, log, temporal: h.client, config: h.config };
    await eventually(
      async () =>
        (await closeAbandonedJobs(deps)) > 0 &&
        (await h.api('GET', `/transform/v1/jobs/${job.id}`)).body.status === 'ERR',
      15_000,
      'the job to be closed',
    );
    const closed = (await h.api('GET', `/transform/v1/jobs/${job.id}`)).body;
    expect(closed.faults).toEqual([expect.objectContaining({ provider: 'temporal', code: 'workflow-terminated' })]);
    expect((await h.api('POST', '/transform/v1/jobs', { workflow_id: wf, silo_entry_id: entryId })).status).toBe(202);
  });

  it('the built-in registration issues the mandate and parks on the approval wait', async () => {
    const entryId = await createEntry(h);
    const { body } = await h.api('POST', '/transform/v1/jobs', {
      workflow_id: REGISTRATION_WORKFLOW_ID,
      silo_entry_id: entryId,
    });
    const job = await jobWhen(h, body.id, ['WAIT', 'OK', 'ERR']);
    expect(job.status).toBe('WAIT');
    expect(job.intents.map((i: any) => [i.name, i.completed])).toEqual([
      ['Sign PPF agreement', true],
      ['Set state', true],
      ['Wait for PPF agreement upload', false],
    ]);
    const entry = (await h.api('GET', `/silo/v1/entries/${entryId}`)).body;
    expect(entry.state).toBe('processing');
    expect(entry.meta.map((m: any) => m.key)).toEqual(['approval-link']);
  });
});
