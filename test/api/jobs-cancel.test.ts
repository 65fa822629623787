// Jobs listed, found from their entry, and cancelled — over HTTP, with the workflows on the real dev server.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordJob } from '../../domain/jobs/record-job';
import { REGISTRATION_WORKFLOW_ID, UNREGISTRATION_WORKFLOW_ID } from '../../domain/jobs/builtins';
import { temporalWorkflowId } from '../../domain/jobs/jobs';
import { REGISTRATION } from '../../contract/definitions';
import { makeSiren } from '../../bin/stack/sample-parties';
import { startHarness, type Harness } from '../support/harness';
import { createEntry, createWorkflow, jobWhen, setState, startJob } from '../support/jobs';
import { approve, entryApi, newParty, signInApp, startRegistration } from '../support/registration';
import { b64, png } from '../../bin/stack/sample-images';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const entry = async (id: string) => (await h.api('GET', `/silo/v1/entries/${id}`)).body;
const cancel = (jobId: string, body?: unknown, key?: string) =>
  h.api('POST', `/transform/v1/jobs/${jobId}/cancel`, body, key);

describe('GET /transform/v1/jobs', () => {
  it('lists newest first, filters by entry, status and workflow, and pages with a cursor', async () => {
    const quick = await createWorkflow(h, [setState('completed')]);
    const entryId = await createEntry(h);
    const done: string[] = [];
    for (let i = 0; i < 3; i++) {
      const jobId = await startJob(h, quick, entryId);
      await jobWhen(h, jobId, ['OK']);
      done.push(jobId);
    }
    const byEntry = await h.api('GET', `/transform/v1/jobs?silo_entry_id=${entryId}`);
    expect(byEntry.status).toBe(200);
    expect(byEntry.body.list.map((j: any) => j.id)).toEqual([...done].reverse());
    expect(byEntry.body.list[0]).toMatchObject({
      silo_entry_id: entryId,
      workflow_id: quick,
      status: 'OK',
      intents: [expect.objectContaining({ provider: 'silo.state' })],
    });

    // Pages of one, following next_cursor to the end.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await h.api(
        'GET',
        `/transform/v1/jobs?silo_entry_id=${entryId}&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.body.list.length).toBeLessThanOrEqual(1);
      seen.push(...page.body.list.map((j: any) => j.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...done].reverse());

    const other = await createEntry(h);
    const parked = await startRegistration(h, other);
    await jobWhen(h, parked, ['WAIT']);
    const waiting = (
      await h.api('GET', `/transform/v1/jobs?status=WAIT&workflow_id=${REGISTRATION_WORKFLOW_ID}&limit=100`)
    ).body.list.map((j: any) => j.id);
    expect(waiting).toContain(parked);
    expect(waiting).not.toContain(done[0]);
    expect(
      (await h.api('GET', `/transform/v1/jobs?workflow_id=${quick}&limit=100`)).body.list.map((j: any) => j.id),
    ).toEqual(expect.arrayContaining(done));
    // Another workspace sees none of them.
    expect(
      (await h.api('GET', `/transform/v1/jobs?silo_entry_id=${entryId}`, undefined, await h.newKey())).body.list,
    ).toEqual([]);
  });

  it('refuses bad filters with the reason', async () => {
    const notUuid = Buffer.from(`t1.${'-'.repeat(36)}`).toString('base64url');
    for (const [q, field] of [
      ['status=DONE', 'query.status'],
      ['cursor=abc', 'query.cursor'],
      [`cursor=${notUuid}`, 'query.cursor'],
      ['created_at=0000-01-01T00:00:00Z', 'query.created_at'],
      ['silo_entry_id=1', 'query.silo_entry_id'],
      ['limit=500', 'query.limit'],
      ['created_at=yesterday', 'query.created_at'],
    ]) {
      const r = await h.api('GET', `/transform/v1/jobs?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.errors[0].path).toBe(field);
    }
  });
});

describe('an entry names its current and last job', () => {
  it('current while it runs, last once it has ended', async () => {
    const entryId = await newParty(h);
    expect((await entry(entryId)).current_job).toBeUndefined();
    const jobId = await startRegistration(h, entryId);
    await jobWhen(h, jobId, ['WAIT']);
    expect((await entry(entryId)).current_job).toEqual({
      id: jobId,
      workflow_id: REGISTRATION_WORKFLOW_ID,
      status: 'WAIT',
      waiting_for: 'signer',
    });
    expect((await cancel(jobId)).status).toBe(200);
    const after = await entry(entryId);
    expect(after.current_job).toBeUndefined();
    expect(after.last_job).toEqual({ id: jobId, workflow_id: REGISTRATION_WORKFLOW_ID, status: 'CANCEL' });
    const listed = (await h.api('GET', '/silo/v1/entries?limit=100')).body.list.find((e: any) => e.id === entryId);
    expect(listed.last_job.id).toBe(jobId);
  });
});

describe('POST /transform/v1/jobs/{id}/cancel', () => {
  it('ends a registration waiting for its signer: workflow ended, link revoked, mandate voided, party cancelled; a new one can start', async () => {
    const entryId = await newParty(h, makeSiren());
    const jobId = await startRegistration(h, entryId);
    await jobWhen(h, jobId, ['WAIT']);
    const link = (await entry(entryId)).meta.find((m: any) => m.key === 'approval-link');
    expect((await fetch(`${h.baseUrl}/reg/${link.ref}/start`)).status).toBe(200);
    expect((await h.api('POST', `${entryApi(entryId)}/identity`, { view: 'page', data: b64(png()) })).status).toBe(204);

    const r = await cancel(jobId, { reason: 'the customer signed with another platform' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.status).toBe('CANCEL');
    expect(r.body.completed_at).toBeDefined();
    expect(r.body.faults).toEqual([
      { provider: 'transform', code: 'cancelled', message: 'the customer signed with another platform' },
    ]);
    // Journalled on the step it was waiting at.
    const wait = r.body.intents.find((i: any) => i.step_id === REGISTRATION.steps[2]!.id);
    expect(wait.events.at(-1)).toMatchObject({
      status: 'KO',
      code: 'cancelled',
      message: 'the customer signed with another platform',
    });

    const after = await entry(entryId);
    expect(after.state).toBe('cancelled');
    expect(after.meta.find((m: any) => m.key === 'approval-link').value).toEqual({ job_id: jobId, cancelled: true });
    // The link opens nothing, and says why to the signer who follows it.
    const page = await fetch(`${h.baseUrl}/reg/${link.ref}/start`);
    expect(page.status).toBe(410);
    expect(await page.text()).toContain('Cette inscription a été annulée');
    const wizardApi = await fetch(`${h.baseUrl}/reg/${link.ref}/api/state`);
    expect(wizardApi.status).toBe(410);
    expect(((await wizardApi.json()) as { code: string }).code).toBe('link-cancelled');
    const mandate = await h.api('GET', `${entryApi(entryId)}/agreement`);
    expect(mandate.status).toBe(409);
    expect(mandate.body.code).toBe('mandate-voided');

    const run = await h.client.workflow.getHandle(temporalWorkflowId(jobId)).describe();
    expect(run.status.name).toBe('COMPLETED');
    expect(run.typedSearchAttributes.get({ name: 'JobStatus', type: 'KEYWORD' } as never)).toBe('CANCEL');
    expect(run.typedSearchAttributes.get({ name: 'PartyState', type: 'KEYWORD' } as never)).toBe('cancelled');

    // Cancelled once: a second time there is nothing to cancel.
    const again = await cancel(jobId);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('job-ended');

    // A new registration starts, with a new mandate and a new link; the identity document shown for the cancelled one
    // does not count for it.
    const next = await startRegistration(h, entryId);
    await jobWhen(h, next, ['WAIT']);
    expect((await h.api('GET', `${entryApi(entryId)}/agreement`)).status).toBe(200);
    expect((await entry(entryId)).state).toBe('processing');
    const nextLink = (await entry(entryId)).meta.find((m: any) => m.key === 'approval-link');
    expect(nextLink.ref).not.toBe(link.ref);
    const state = (await (await fetch(`${h.baseUrl}/reg/${nextLink.ref}/api/state`)).json()) as { identity: unknown };
    expect(state.identity).toEqual({ front: false, back: false, page: false });
  });

  it('refuses once the directory step has started, pointing to unregistration; the job goes on', async () => {
    const entryId = await newParty(h, makeSiren());
    const jobId = await startRegistration(h, entryId);
    await jobWhen(h, jobId, ['WAIT']);
    await signInApp(h, entryId);
    await expect.poll(async () => (await entry(entryId)).state, { timeout: 15_000 }).toBe('submitted');
    h.sims.annuaire.setFaults({ errorRates: { 503: 1 }, count: 1000, retryAfterSeconds: 1 });
    try {
      await approve(h, entryId);
      await expect
        .poll(
          async () =>
            (await h.api('GET', `/transform/v1/jobs/${jobId}`)).body.intents.some(
              (i: any) => i.provider === 'gov-fr.directory.register',
            ),
          { timeout: 15_000 },
        )
        .toBe(true);
      const r = await cancel(jobId);
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('past-directory');
      expect(r.body.detail).toContain(UNREGISTRATION_WORKFLOW_ID);
    } finally {
      h.sims.annuaire.setFaults(undefined);
    }
    expect((await jobWhen(h, jobId, ['OK', 'ERR'], 60_000)).status).toBe('OK');
    expect((await entry(entryId)).state).toBe('registered');
  });

  it('cancels a job whose workflow never started (Temporal was unreachable) in the store', async () => {
    const entryId = await createEntry(h);
    const jobId = crypto.randomUUID();
    const inserted = await recordJob(h.db, {
      id: jobId,
      workspaceId: h.workspaceId,
      workflowId: REGISTRATION_WORKFLOW_ID,
      workflowType: 'registration',
      entryId,
      docSchema: 'org/party',
      definition: REGISTRATION,
      args: {},
      tags: [],
      registers: true,
    });
    expect(inserted.outcome).toBe('inserted');
    const r = await cancel(jobId);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.status).toBe('CANCEL');
    expect((await entry(entryId)).state).toBe('cancelled');
    expect(await startRegistration(h, entryId)).toBeTruthy(); // the entry is free again
  });

  it("404 for an unknown job or another workspace's; 409 for a job that ended", async () => {
    const entryId = await newParty(h);
    const jobId = await startRegistration(h, entryId);
    await jobWhen(h, jobId, ['WAIT']);
    expect((await cancel(crypto.randomUUID())).status).toBe(404);
    expect((await cancel(jobId, undefined, await h.newKey())).status).toBe(404);
    expect((await cancel(jobId, { reason: '' })).status).toBe(400);
    expect((await cancel(jobId, { why: 'x' })).status).toBe(400);
    await signInApp(h, entryId);
    await expect.poll(async () => (await entry(entryId)).state, { timeout: 15_000 }).toBe('submitted');
    await approve(h, entryId);
    await jobWhen(h, jobId, ['OK'], 60_000);
    const ended = await cancel(jobId);
    expect(ended.status).toBe(409);
    expect(ended.body.detail).toMatch(/has ended \(OK\)/);
  });

  it('and an approval decision racing: exactly one wins, the other answers 409, and the final state is the winner’s (10 rounds)', async () => {
    const won = { cancel: 0, decision: 0 };
    const losers: Record<string, number> = {};
    for (let round = 0; round < 10; round++) {
      const entryId = await newParty(h, makeSiren());
      const jobId = await startRegistration(h, entryId);
      await jobWhen(h, jobId, ['WAIT']);
      await signInApp(h, entryId);
      await expect.poll(async () => (await entry(entryId)).state, { timeout: 15_000 }).toBe('submitted');
      // Fired together, either one a few milliseconds ahead now and then, so that each gets to win.
      const lag = (ms: number) => new Promise((r) => setTimeout(r, ms));
      const ahead = round % 3; // 0: together; 1: the cancellation ahead; 2: the decision ahead
      const [c, d] = await Promise.all([
        lag(ahead === 2 ? 5 : 0).then(() => cancel(jobId, { reason: `round ${round}` })),
        lag(ahead === 1 ? 5 : 0).then(() => h.api('POST', `${entryApi(entryId)}/decision`, { approved: true })),
      ]);
      const what = `round ${round}: cancel ${c.status} ${c.body?.code ?? ''}, decision ${d.status} ${d.body?.code ?? ''}`;
      expect([c.status, d.status].sort(), what).toEqual([200, 409]);
      const loser = c.status === 409 ? `cancel ${c.body.code}` : `decision ${d.body.code}`;
      losers[loser] = (losers[loser] ?? 0) + 1;
      const decisions = async () =>
        (await h.db.query('SELECT approved FROM approval_decisions WHERE job_id = $1', [jobId])).rows;
      if (c.status === 200) {
        won.cancel++;
        // The decision saw the cancellation: not recorded, the job and the party cancelled.
        expect(['job-cancelled', 'mandate-voided', 'not-waiting'], what).toContain(d.body.code);
        expect(c.body.status).toBe('CANCEL');
        expect(await decisions()).toEqual([]);
        expect((await entry(entryId)).state).toBe('cancelled');
        const job = (await h.api('GET', `/transform/v1/jobs/${jobId}`)).body;
        expect(job.status).toBe('CANCEL');
      } else {
        won.decision++;
        // The cancellation saw the approval: nothing cancelled, the registration goes on to its end.
        expect(['already-decided', 'past-directory'], what).toContain(c.body.code);
        expect(d.body.decision).toBe('approved');
        expect(await decisions()).toEqual([{ approved: true }]);
        expect((await jobWhen(h, jobId, ['OK', 'ERR', 'CANCEL'], 60_000)).status, what).toBe('OK');
        expect((await entry(entryId)).state).toBe('registered');
        const { rows } = await h.db.query('SELECT cancel_reason FROM jobs WHERE id = $1', [jobId]);
        expect(rows).toEqual([{ cancel_reason: null }]);
      }
    }
    console.info(`cancellation vs decision, 10 rounds: won ${JSON.stringify(won)}, lost ${JSON.stringify(losers)}`);
  }, 600_000);

  it('refuses an unregistration of an entry that has nothing to undo', async () => {
    const entryId = await newParty(h);
    const r = await h.api('POST', '/transform/v1/jobs', {
      workflow_id: UNREGISTRATION_WORKFLOW_ID,
      silo_entry_id: entryId,
    });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 'not-registered', detail: expect.stringContaining('was never registered') });
  });
});
