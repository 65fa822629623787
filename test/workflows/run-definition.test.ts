// The definition interpreter on the real Temporal dev server: steps, rescue, the approval wait, search attributes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporalWorkflowId } from '../../domain/jobs/jobs';
import { approvalSignal } from '../../contract/signals';
import { JobStatus, PartyState, SiloEntryId } from '../../contract/search-attributes';
import { stateHistory } from '../../platform/store/entry-states';
import { eventually, startHarness, type Harness } from '../support/harness';
import { maybeRecordHistory } from '../support/record-history';
import { createEntry, createWorkflow, entryState, jobWhen, setState, startJob, step } from '../support/jobs';
import { entryApi, signInApp } from '../support/registration';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ approvalDeadline: '1h' });
});
afterAll(() => h.close());

const maybeRecord = (jobId: string, name: string) =>
  maybeRecordHistory(h.client.workflow.getHandle(temporalWorkflowId(jobId)), name);

describe('a definition of silo.state steps', () => {
  it('runs to its end: job OK, every step an intent with RUN and OK events, states in order', async () => {
    const entryId = await createEntry(h);
    const wf = await createWorkflow(h, [setState('processing'), setState('completed'), setState('registered')]);
    const jobId = await startJob(h, wf, entryId);
    const job = await jobWhen(h, jobId, ['OK', 'ERR']);

    expect(job.status).toBe('OK');
    expect(job.faults).toEqual([]);
    expect(job.completed_at).toBeDefined();
    expect(job.intents.map((i: any) => [i.provider, i.completed, i.events.map((e: any) => e.status)])).toEqual([
      ['silo.state', true, ['RUN', 'OK']],
      ['silo.state', true, ['RUN', 'OK']],
      ['silo.state', true, ['RUN', 'OK']],
    ]);
    expect(await entryState(h, entryId)).toBe('registered');
    expect((await stateHistory(h.db, entryId)).map((s) => s.state)).toEqual(['processing', 'completed', 'registered']);

    // Operators find it in the Temporal UI by its search attributes. The last step's activity ends the job in the
    // store; the workflow upserts its attributes once that activity has returned: the UI follows shortly after.
    const handle = h.client.workflow.getHandle(temporalWorkflowId(jobId));
    const desc = await eventually(
      async () => {
        const d = await handle.describe();
        return d.status.name === 'COMPLETED' && d;
      },
      15_000,
      'the workflow to complete',
    );
    expect(desc.typedSearchAttributes.get(PartyState)).toBe('registered');
    expect(desc.typedSearchAttributes.get(JobStatus)).toBe('OK');
    expect(desc.typedSearchAttributes.get(SiloEntryId)).toBe(entryId);
    // The journal rides with the steps' activities: no local activity, no patch marker (each would upsert
    // TemporalChangeVersion, a visibility write); the start set JobStatus RUN: no upsert repeats it.
    const events = (await h.client.workflow.getHandle(temporalWorkflowId(jobId)).fetchHistory()).events ?? [];
    expect(events.filter((e) => e.markerRecordedEventAttributes)).toEqual([]);
    expect(events.filter((e) => e.activityTaskScheduledEventAttributes)).toHaveLength(3);
    const upserted = events.flatMap((e) =>
      Object.keys(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}),
    );
    expect(upserted).not.toContain('TemporalChangeVersion');
    expect(upserted.filter((k) => k === JobStatus.name)).toHaveLength(1); // OK, at the end
    await maybeRecord(jobId, 'run-definition.silo-state-steps');
  });
});

describe('a failing step', () => {
  it('runs the rescue: the party state becomes error and the job ends ERR with the fault', async () => {
    // A definition reaching the directory without the party's approved mandate: a business fault.
    const entryId = await createEntry(h);
    const wf = await createWorkflow(h, [
      setState('processing'),
      step('gov-fr.directory.register'),
      setState('registered'),
    ]);
    const jobId = await startJob(h, wf, entryId);
    const job = await jobWhen(h, jobId, ['OK', 'ERR']);

    expect(job.status).toBe('ERR');
    expect(job.faults).toEqual([
      {
        provider: 'gov-fr.directory.register',
        code: 'mandate-not-approved',
        message: expect.stringMatching(/no signed and approved mandate/),
      },
    ]);
    // The failed step is KO, the step after it never ran, the rescue step ran.
    expect(job.intents.map((i: any) => [i.provider, i.events.at(-1).status])).toEqual([
      ['silo.state', 'OK'],
      ['gov-fr.directory.register', 'KO'],
      ['silo.state', 'OK'],
    ]);
    const entry = (await h.api('GET', `/silo/v1/entries/${entryId}`)).body;
    expect(entry.state).toBe('error');
    expect(entry.faults).toEqual(job.faults);
    await maybeRecord(jobId, 'run-definition.rescue-after-failure');
  });

  it('a provider unknown to the worker fails the job with a clear fault', async () => {
    const entryId = await createEntry(h);
    const wf = await createWorkflow(h, [step('acme.teleport')]);
    const job = await jobWhen(h, await startJob(h, wf, entryId), ['OK', 'ERR']);
    expect(job.status).toBe('ERR');
    expect(job.faults[0]).toEqual({
      provider: 'acme.teleport',
      code: 'provider-unknown',
      message: 'step "acme.teleport" uses provider "acme.teleport", which this worker does not know',
    });
    expect(await entryState(h, entryId)).toBe('error');
  });
});

/** A job of a definition like the registration's, parked on its approval wait. */
async function waiting() {
  const entryId = await createEntry(h);
  const wait = step('gov-fr.agreement.wait.approval');
  const wf = await createWorkflow(h, [
    step('gov-fr.agreement.sign'),
    setState('processing'),
    wait,
    setState('completed'),
  ]);
  const jobId = await startJob(h, wf, entryId);
  await jobWhen(h, jobId, ['WAIT']);
  return { entryId, jobId, handle: h.client.workflow.getHandle(temporalWorkflowId(jobId)) };
}

describe('the approval wait', () => {
  const decide = async (entryId: string, approved: boolean) =>
    expect(
      (
        await h.api('POST', `${entryApi(entryId)}/decision`, {
          approved,
          ...(!approved && { reason: 'blurred ID card' }),
        })
      ).status,
    ).toBe(200);

  it('parks the job; the API records the submission and each decision, and the job goes on once approved', async () => {
    const { entryId, jobId, handle } = await waiting();
    expect(await entryState(h, entryId)).toBe('processing');

    await signInApp(h, entryId);
    expect(await entryState(h, entryId)).toBe('submitted'); // recorded by the API before it answered
    await expect
      .poll(async () => (await handle.describe()).typedSearchAttributes.get(PartyState), { timeout: 15_000 })
      .toBe('submitted');
    await decide(entryId, false);
    expect(await entryState(h, entryId)).toBe('processing');
    expect((await handle.describe()).typedSearchAttributes.get(JobStatus)).toBe('WAIT');

    await signInApp(h, entryId);
    await decide(entryId, true);
    const job = await jobWhen(h, jobId, ['OK', 'ERR']);
    expect(job.status).toBe('OK');
    expect(await entryState(h, entryId)).toBe('completed');
    const waitIntent = job.intents.find((i: any) => i.provider === 'gov-fr.agreement.wait.approval');
    expect(waitIntent.events.map((e: any) => e.code ?? e.status)).toEqual([
      'RUN',
      'submitted',
      'rejected',
      'submitted',
      'approved',
      'OK',
    ]);
    expect(job.intents.flatMap((i: any) => i.events.map((e: any) => e.index))).toEqual([...Array(12).keys()]);
    expect((await stateHistory(h.db, entryId)).map((s) => s.state)).toEqual([
      'processing',
      'submitted',
      'processing',
      'submitted',
      'completed',
    ]);
    await maybeRecord(jobId, 'run-definition.approval-wait');
  });

  it('takes a signal as a hint: an approval sent straight to Temporal, with none recorded, leaves the job waiting', async () => {
    const { entryId, jobId, handle } = await waiting();
    await signInApp(h, entryId);

    await handle.signal(approvalSignal, { kind: 'decided', approved: true, decisionId: 'forged' });
    // The step after the wait found no approved decision and did nothing: the workflow waits again.
    await expect
      .poll(
        async () => (await handle.fetchHistory()).events!.filter((e) => e.activityTaskFailedEventAttributes).length,
        { timeout: 15_000 },
      )
      .toBe(1);
    expect((await jobWhen(h, jobId, ['WAIT'])).status).toBe('WAIT');
    expect(await entryState(h, entryId)).toBe('submitted');

    await decide(entryId, true); // the operator's real decision
    expect((await jobWhen(h, jobId, ['OK', 'ERR'])).status).toBe('OK');
    expect(await entryState(h, entryId)).toBe('completed');
  });
});

describe('an approval signalled just before its decision commits', () => {
  it('is not lost: the step after the wait checks again for a few seconds before it waits for another hint', async () => {
    const { entryId, jobId, handle } = await waiting();
    await signInApp(h, entryId);
    // The API signals inside the decision's transaction: the hint can reach the step before the commit does.
    await handle.signal(approvalSignal, { kind: 'decided', approved: true, decisionId: 'not-yet-committed' });
    expect((await h.api('POST', `${entryApi(entryId)}/decision`, { approved: true })).status).toBe(200);
    expect((await jobWhen(h, jobId, ['OK', 'ERR'])).status).toBe('OK');
    expect((await handle.fetchHistory()).events!.filter((e) => e.activityTaskFailedEventAttributes)).toEqual([]);
  });
});

describe('the approval deadline', () => {
  it('fails the wait when nothing is approved in time, and the rescue sets error', async () => {
    const short = await startHarness({ approvalDeadline: '2s' });
    try {
      const entryId = await createEntry(short);
      const wf = await createWorkflow(short, [step('gov-fr.agreement.wait.approval'), setState('completed')]);
      const job = await jobWhen(short, await startJob(short, wf, entryId), ['OK', 'ERR']);
      expect(job.status).toBe('ERR');
      expect(job.faults[0]).toMatchObject({ provider: 'gov-fr.agreement.wait.approval', code: 'approval-timeout' });
      expect(await entryState(short, entryId)).toBe('error');
    } finally {
      await short.close();
    }
  });
});
