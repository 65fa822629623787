// Progress as a client and an operator read it: what a waiting job waits for (API and Temporal UI), nothing stale
// once it ends, and the events page with its cursor and filters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporalWorkflowId } from '../../domain/jobs/jobs';
import { WaitingFor } from '../../contract/search-attributes';
import { makeSiren } from '../../bin/stack/sample-parties';
import { startHarness, type Harness } from '../support/harness';
import { jobWhen } from '../support/jobs';
import { approve, entryApi, newParty, signInApp, startRegistration } from '../support/registration';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const entry = async (id: string) => (await h.api('GET', `/silo/v1/entries/${id}`)).body;
const job = async (id: string) => (await h.api('GET', `/transform/v1/jobs/${id}`)).body;
/** What the Temporal UI shows as the run's current details. */
const uiDetails = async (jobId: string) =>
  (
    await h.client.workflow
      .getHandle(temporalWorkflowId(jobId))
      .query<{ currentDetails?: string }>('__temporal_workflow_metadata')
  ).currentDetails ?? '';

/** The jobs whose runs the Temporal UI lists for a query (its visibility store: written shortly after the run). */
const listed = async (query: string) => {
  const ids: string[] = [];
  for await (const wf of h.client.workflow.list({ query })) ids.push(wf.workflowId.replace(/^job-/, ''));
  return ids;
};
const visible = { timeout: 15_000, interval: 200 };

describe('what a waiting registration waits for', () => {
  it('the signer, then the operator, then a new submission after a rejection — in the job, its entry and the Temporal UI', async () => {
    const siren = makeSiren();
    const entryId = await newParty(h, siren);
    const jobId = await startRegistration(h, entryId);
    await jobWhen(h, jobId, ['WAIT']);
    expect((await job(jobId)).waiting_for).toBe('signer');
    await expect.poll(() => listed(`WaitingFor = "signer" AND SiloEntryId = "${entryId}"`), visible).toEqual([jobId]);
    expect(await entry(entryId)).toMatchObject({
      state: 'processing',
      waiting_for: 'signer',
      current_job: { id: jobId, status: 'WAIT', waiting_for: 'signer' },
    });
    expect(await uiDetails(jobId)).toMatch(/^Step 3 of 7: Wait for PPF agreement upload .*waiting for the signer/);
    const handle = h.client.workflow.getHandle(temporalWorkflowId(jobId));
    // Listed by its SIREN and, a legal person's, its name.
    expect(await (await handle.describe()).staticSummary()).toBe(
      `French party registration — SIREN ${siren} (Boulangerie Exemple SAS)`,
    );

    await signInApp(h, entryId);
    await expect.poll(async () => (await entry(entryId)).waiting_for, { timeout: 15_000 }).toBe('decision');
    expect((await job(jobId)).waiting_for).toBe('decision');
    await expect.poll(() => uiDetails(jobId), { timeout: 15_000 }).toMatch(/waiting for the operator's decision/);
    await expect.poll(() => listed(`WaitingFor = "decision" AND SiloEntryId = "${entryId}"`), visible).toEqual([jobId]);

    expect(
      (await h.api('POST', `${entryApi(entryId)}/decision`, { approved: false, reason: 'illegible identity document' }))
        .status,
    ).toBe(200);
    await expect.poll(async () => (await entry(entryId)).waiting_for, { timeout: 15_000 }).toBe('resubmission');
    expect((await entry(entryId)).state).toBe('processing');
    await expect.poll(() => uiDetails(jobId), { timeout: 15_000 }).toMatch(/waiting for a new submission/);
    expect((await handle.describe()).typedSearchAttributes.get(WaitingFor)).toBe('resubmission');

    await signInApp(h, entryId);
    await expect.poll(async () => (await entry(entryId)).waiting_for, { timeout: 15_000 }).toBe('decision');
    await approve(h, entryId);
    expect((await jobWhen(h, jobId, ['OK', 'ERR'], 60_000)).status).toBe('OK');
    const done = await job(jobId);
    expect(done.waiting_for).toBeUndefined();
    expect((await entry(entryId)).waiting_for).toBeUndefined();
    expect((await handle.describe()).typedSearchAttributes.get(WaitingFor)).toBeUndefined();
    // Nothing of the last step stays shown once the run has ended.
    expect(await uiDetails(jobId)).toBe('Ended OK: all 7 steps done');
  });
});

describe('GET /events/v1/events', () => {
  it('pages with a cursor and filters by entry and by kind', async () => {
    const entryId = await newParty(h, makeSiren());
    const jobId = await startRegistration(h, entryId);
    await jobWhen(h, jobId, ['WAIT']);
    expect((await h.api('POST', `/transform/v1/jobs/${jobId}/cancel`, { reason: 'test' })).status).toBe(200);
    expect(
      (
        await h.api('PATCH', `/silo/v1/entries/${entryId}`, {
          content_type: 'application/merge-patch+json',
          data: { name: 'Nouveau Nom SAS' },
        })
      ).status,
    ).toBe(200);

    const all = (await h.api('GET', `/events/v1/events?entry_id=${entryId}&limit=100`)).body.list;
    expect(all.every((e: any) => e.entry_id === entryId)).toBe(true);
    // Newest first: the correction, the job's end, the states it went through.
    expect(all.map((e: any) => e.kind)).toEqual([
      'party.updated',
      'job.completed',
      'party.state_changed',
      'party.state_changed',
    ]);
    expect(all.map((e: any) => e.data.state).filter(Boolean)).toEqual(['cancelled', 'processing']);

    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await h.api(
        'GET',
        `/events/v1/events?entry_id=${entryId}&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status).toBe(200);
      paged.push(...page.body.list.map((e: any) => e.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(paged).toEqual(all.map((e: any) => e.id));

    const states = (await h.api('GET', `/events/v1/events?entry_id=${entryId}&kind=party.state_changed`)).body.list;
    expect(states.map((e: any) => e.kind)).toEqual(['party.state_changed', 'party.state_changed']);
    // The faults are a list, as the entry's: none here.
    expect(states.map((e: any) => e.data.faults)).toEqual([[], []]);
    const two = (await h.api('GET', `/events/v1/events?entry_id=${entryId}&kind=job.completed,party.updated`)).body
      .list;
    expect(two.map((e: any) => e.kind)).toEqual(['party.updated', 'job.completed']);
    expect(two[1].data).toMatchObject({ job_id: jobId, status: 'CANCEL' });

    const repeated = (await h.api('GET', `/events/v1/events?entry_id=${entryId}&kind=job.completed&kind=party.updated`))
      .body.list;
    expect(repeated.map((e: any) => e.kind)).toEqual(['party.updated', 'job.completed']);
    const bad = await h.api('GET', '/events/v1/events?kind=party.deleted');
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/party\.state_changed/);
    expect((await h.api('GET', '/events/v1/events?cursor=nope')).status).toBe(400);
    // Another workspace sees none of them.
    expect(
      (await h.api('GET', `/events/v1/events?entry_id=${entryId}`, undefined, await h.newKey(['events:read']))).body
        .list,
    ).toEqual([]);
  });
});
