// The registration's workflow with stub activities: which steps run, in what order, carrying which journal lines
// and job status; the search attributes operators filter on; the history's shape.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplicationFailure } from '@temporalio/activity';
import { registration } from '../../workflows/registration';
import { JobStatus, PartyState, WaitingFor } from '../../contract/search-attributes';
import { showWaitingForSignal } from '../../contract/signals';
import { maybeRecordHistory } from '../support/record-history';
import { attribute, count, events, hint, poll, startFastWorker, status } from '../support/workflow-stubs';

let h: Awaited<ReturnType<typeof startFastWorker>>;
beforeAll(async () => {
  h = await startFastWorker();
});
afterAll(() => h?.close());

const WAIT = 'gov-fr.agreement.wait.approval';
const DIR = 'gov-fr.directory.register';
/** Parked on its approval wait: the 2 steps before it ran and the job shows WAIT. */
async function parked() {
  const run = await h.start(registration, {});
  await poll(() => attribute(run.handle, JobStatus)).toBe('WAIT');
  return run;
}

describe('registration', () => {
  it('runs to OK: 2 steps, the wait, then 4 steps once an approval is recorded and hinted', async () => {
    const { handle, job } = await parked();
    expect(job.calls).toMatchObject([
      { provider: 'gov-fr.agreement.sign', lines: ['gov-fr.agreement.sign start RUN', 'gov-fr.agreement.sign end OK'] },
      // The step before the wait opens it: the wait's start and the job's WAIT ride with its effect.
      {
        provider: 'silo.state',
        state: 'processing',
        status: 'WAIT',
        lines: ['silo.state start RUN', 'silo.state end OK', `${WAIT} start RUN`],
      },
    ]);
    expect(job.calls[0]!.status).toBeUndefined(); // the API marked the job RUN when it started the workflow
    expect(await attribute(handle, PartyState)).toBe('processing');
    expect(await attribute(handle, WaitingFor)).toBe('signer');

    await hint.confirmed(handle); // the API recorded the signer's submission
    await poll(() => attribute(handle, PartyState)).toBe('submitted');
    expect(await attribute(handle, WaitingFor)).toBe('decision');
    job.approved = true; // the API recorded the operator's approval, then hints
    await hint.decided(handle, true);
    expect(await handle.result()).toEqual({ status: 'OK', faults: [] });
    await maybeRecordHistory(handle, 'registration.ok');

    expect(job.calls.slice(2).map((c) => [c.provider, c.state, c.status, c.requiresApproval])).toEqual([
      ['silo.state', 'completed', 'RUN', true], // refused unless the approval is recorded
      [DIR, undefined, undefined, false],
      ['peppol.register', undefined, undefined, false],
      ['silo.state', 'registered', 'OK', false],
    ]);
    expect(job.calls[2]!.lines).toEqual([`${WAIT} end OK`, 'silo.state start RUN', 'silo.state end OK']);
    expect(job.calls.some((c) => c.refused)).toBe(false);
    // The journal rides with the steps: no local activity or marker, one activity a step.
    expect(await count(handle, 'markerRecordedEventAttributes')).toBe(0);
    expect(await count(handle, 'activityTaskScheduledEventAttributes')).toBe(6);
    expect(await attribute(handle, PartyState)).toBe('registered');
    expect(await attribute(handle, JobStatus)).toBe('OK');
    // What the job waited for is gone with the wait; it rode on the writes operators already had: four a run.
    expect(await attribute(handle, WaitingFor)).toBeUndefined();
    expect(await count(handle, 'upsertWorkflowSearchAttributesEventAttributes')).toBe(4);
  });

  it('shows a second operator is awaited after a first approval (four eyes), then goes on once approved', async () => {
    const { handle, job } = await parked();
    await hint.confirmed(handle);
    await poll(() => attribute(handle, WaitingFor)).toBe('decision');
    await hint.firstApproved(handle); // the API recorded a first approval the policy wants a second for
    await poll(() => attribute(handle, WaitingFor)).toBe('second-decision');
    expect(await attribute(handle, PartyState)).toBe('submitted');
    expect(job.calls).toHaveLength(2);
    job.approved = true;
    await hint.decided(handle, true);
    expect(await handle.result()).toEqual({ status: 'OK', faults: [] });
    await maybeRecordHistory(handle, 'registration.four-eyes');
    expect(await attribute(handle, WaitingFor)).toBeUndefined();
  });

  it('writes what it waits for again when asked: a run parked by a build that did not write it', async () => {
    const { handle } = await parked();
    const upserts = () => count(handle, 'upsertWorkflowSearchAttributesEventAttributes');
    const before = await upserts();
    await handle.signal(showWaitingForSignal);
    await poll(upserts).toBe(before + 1);
    const last = (await events(handle)).filter((e) => e.upsertWorkflowSearchAttributesEventAttributes).at(-1)!;
    expect(Object.keys(last.upsertWorkflowSearchAttributesEventAttributes!.searchAttributes!.indexedFields!)).toEqual([
      WaitingFor.name,
    ]);
    expect(await attribute(handle, WaitingFor)).toBe('signer');
    await handle.terminate('test done');
  });

  it('waits on a durable timer, the job in WAIT, before publishing on Peppol when the directory lines take effect later', async () => {
    const { handle, job } = await parked();
    const notBefore = Date.now() + 3_000;
    job.results.set(DIR, { lines: [], takesEffectOn: 'later', nextStepNotBefore: new Date(notBefore).toISOString() });
    job.approved = true;
    await hint.decided(handle, true);
    // While it waits, the Temporal UI says why and until when.
    const day = new Date(notBefore).toISOString().slice(0, 10);
    const details = async () =>
      ((await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string }).currentDetails;
    await poll(details).toBe(
      `Step 5 of 7: Register party in Directory (${DIR}) done: it takes effect on ${day}; the next step waits until then`,
    );
    // The job shows WAIT for that day (waiting_for effective-date), then RUN again when Peppol publishes.
    expect(await attribute(handle, JobStatus)).toBe('WAIT');
    expect(await attribute(handle, WaitingFor)).toBe('effective-date');
    expect(await handle.result()).toEqual({ status: 'OK', faults: [] });
    const dir = job.calls.find((c) => c.provider === DIR)!;
    const peppol = job.calls.find((c) => c.provider === 'peppol.register')!;
    const waits = job.calls.filter((c) => c.provider === 'job.journal');
    expect(waits.map((c) => [c.status, c.until, c.lines])).toEqual([['WAIT', day, []]]);
    expect(peppol.status).toBe('RUN');
    expect(peppol.at).toBeGreaterThanOrEqual(notBefore);
    expect(dir.at).toBeLessThan(notBefore);
    // One timer, named for the operator in the Temporal UI.
    const timers = (await events(handle)).filter(
      (e) => e.timerStartedEventAttributes && String(e.userMetadata?.summary?.data).includes('takes effect on'),
    );
    expect(timers).toHaveLength(1);
  });

  it('runs the rescue when the directory refuses for good: the party state error, the job ERR with the fault', async () => {
    const { handle, job } = await parked();
    job.failures.set(DIR, ApplicationFailure.nonRetryable('SIREN unknown to the PPF', 'annuaire-rejected'));
    job.approved = true;
    await hint.decided(handle, true);
    const fault = { provider: DIR, code: 'annuaire-rejected', message: 'SIREN unknown to the PPF' };
    expect(await handle.result()).toEqual({ status: 'ERR', faults: [fault] });
    await maybeRecordHistory(handle, 'registration.rescue');

    // No registration step after the failed one; the rescue sees that the SIREN keeps a directory line (a handover
    // the step cut short), records the failure and ends the job.
    expect(job.calls.map((c) => c.state ?? c.provider)).toEqual([
      'gov-fr.agreement.sign',
      'processing',
      'completed',
      DIR,
      'gov-fr.directory.cover',
      'error',
    ]);
    expect(job.calls.at(-1)).toEqual({
      provider: 'silo.state',
      state: 'error',
      status: 'ERR',
      faults: [fault],
      requiresApproval: false,
      refused: false,
      at: expect.any(Number),
      lines: [`${DIR} start RUN`, `${DIR} end KO annuaire-rejected`, 'silo.state start RUN', 'silo.state end OK'],
    });
    expect(await count(handle, 'activityTaskFailedEventAttributes')).toBe(1); // non-retryable: one attempt
    expect(await attribute(handle, PartyState)).toBe('error');
    expect(await attribute(handle, JobStatus)).toBe('ERR');
  });

  it("a rescue that cannot see to the SIREN's directory line says so in the job's faults, and still ends it", async () => {
    const { handle, job } = await parked();
    job.failures.set(DIR, ApplicationFailure.nonRetryable('SIREN unknown to the PPF', 'annuaire-rejected'));
    job.failures.set('gov-fr.directory.cover', ApplicationFailure.nonRetryable('refused', 'annuaire-rejected'));
    job.approved = true;
    await hint.decided(handle, true);
    expect(await handle.result()).toEqual({
      status: 'ERR',
      faults: [
        { provider: DIR, code: 'annuaire-rejected', message: 'SIREN unknown to the PPF' },
        { provider: 'gov-fr.directory.cover', code: 'annuaire-rejected', message: 'refused' },
      ],
    });
    await maybeRecordHistory(handle, 'registration.rescue-with-directory-cover');
    expect(job.calls.map((c) => c.state ?? c.provider).slice(-3)).toEqual([DIR, 'gov-fr.directory.cover', 'error']);
    expect(await attribute(handle, PartyState)).toBe('error');
  });

  it('keeps waiting after a rejection (nothing runs, the party back to processing), then goes on once approved', async () => {
    const { handle, job } = await parked();
    await hint.confirmed(handle);
    await poll(() => attribute(handle, PartyState)).toBe('submitted');
    await hint.decided(handle, false); // the API recorded a rejection: the signer must submit again
    await poll(() => attribute(handle, PartyState)).toBe('processing');
    expect(await attribute(handle, WaitingFor)).toBe('resubmission');
    expect(job.calls).toHaveLength(2);
    expect(await status(handle)).toBe('RUNNING');
    expect(await attribute(handle, JobStatus)).toBe('WAIT');

    await hint.confirmed(handle);
    job.approved = true;
    await hint.decided(handle, true);
    expect(await handle.result()).toEqual({ status: 'OK', faults: [] });
    await maybeRecordHistory(handle, 'registration.rejected-then-approved');
    expect(job.calls.map((c) => c.state ?? c.provider)).toEqual([
      'gov-fr.agreement.sign',
      'processing',
      'completed',
      DIR,
      'peppol.register',
      'registered',
    ]);
  });
});
