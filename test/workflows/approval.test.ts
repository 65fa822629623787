// The approval wait's edges with stub activities: its deadline, and a signal that is not backed by a recorded
// approval (signals are hints; the step after the wait checks the store).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registration } from '../../workflows/registration';
import { JobStatus, PartyState } from '../../contract/search-attributes';
import { maybeRecordHistory } from '../support/record-history';
import { attribute, count, hint, poll, startFastWorker, status } from '../support/workflow-stubs';

let h: Awaited<ReturnType<typeof startFastWorker>>;
beforeAll(async () => {
  h = await startFastWorker();
});
afterAll(() => h?.close());

const WAIT = 'gov-fr.agreement.wait.approval';
const timeout = (within: string) => ({
  provider: WAIT,
  code: 'approval-timeout',
  message: `no approved submission within ${within}`,
});

describe('the approval wait', () => {
  it('fails past its deadline with no hint: the rescue records the wait KO and ends the job ERR', async () => {
    const { handle, job } = await h.start(registration, { approvalDeadline: '1s' });
    expect(await handle.result()).toEqual({ status: 'ERR', faults: [timeout('1s')] });
    expect(job.calls.map((c) => c.state ?? c.provider)).toEqual(['gov-fr.agreement.sign', 'processing', 'error']);
    expect(job.calls.at(-1)).toMatchObject({
      status: 'ERR',
      faults: [timeout('1s')],
      requiresApproval: false,
      lines: [`${WAIT} end KO approval-timeout`, 'silo.state start RUN', 'silo.state end OK'],
    });
    expect(await attribute(handle, PartyState)).toBe('error');
    expect(await attribute(handle, JobStatus)).toBe('ERR');
  });

  it('takes a forged approval signal as a hint: the step after the wait is refused once and the job waits on', async () => {
    const { handle, job } = await h.start(registration, {});
    await poll(() => attribute(handle, JobStatus)).toBe('WAIT');
    await hint.decided(handle, true); // sent straight to Temporal: no approval in the store
    await poll(() => count(handle, 'activityTaskFailedEventAttributes')).toBe(1);
    expect(job.calls.at(-1)).toMatchObject({
      provider: 'silo.state',
      state: 'completed',
      requiresApproval: true,
      refused: true,
    });
    expect(await status(handle)).toBe('RUNNING');
    expect(await attribute(handle, JobStatus)).toBe('WAIT');

    job.approved = true; // the operator's real decision, recorded then hinted
    await hint.decided(handle, true);
    expect(await handle.result()).toEqual({ status: 'OK', faults: [] });
    const after = job.calls.slice(2);
    expect(after.map((c) => [c.state ?? c.provider, c.refused])).toEqual([
      ['completed', true],
      ['completed', false],
      ['gov-fr.directory.register', false],
      ['peppol.register', false],
      ['registered', false],
    ]);
    expect(after[1]!.lines).toEqual([`${WAIT} end OK`, 'silo.state start RUN', 'silo.state end OK']);
    expect(await count(handle, 'activityTaskFailedEventAttributes')).toBe(1);
    await maybeRecordHistory(handle, 'registration.forged-approval');
  });

  it('fails past its deadline after a forged hint: the rescue records the wait KO and ends the job ERR', async () => {
    const { handle, job } = await h.start(registration, { approvalDeadline: '2s' });
    try {
      await poll(() => attribute(handle, JobStatus)).toBe('WAIT');
      await hint.decided(handle, true); // forged: refused, then nothing before the deadline
      await poll(
        async () =>
          (await status(handle)) !== 'RUNNING' || (await count(handle, 'workflowTaskFailedEventAttributes')) > 0,
      ).toBe(true);
      expect(await status(handle)).toBe('COMPLETED');
      expect(await handle.result()).toEqual({ status: 'ERR', faults: [timeout('2s')] });
      expect(job.calls.at(-1)).toMatchObject({
        state: 'error',
        status: 'ERR',
        refused: false,
        lines: expect.arrayContaining([`${WAIT} end KO approval-timeout`]),
      });
    } finally {
      if ((await status(handle)) === 'RUNNING') await handle.terminate('test over');
    }
  });

  it('shows a submission confirmed before the step before the wait ended as submitted, not processing', async () => {
    let release!: () => void;
    const { handle, job } = await h.start(registration, {}, (j) =>
      j.holds.set('processing', new Promise((r) => (release = r))),
    );
    await poll(async () => job.calls.length).toBe(1); // signed; the processing step is held
    await hint.confirmed(handle); // the signer was quicker than the worker
    await poll(() => attribute(handle, PartyState)).toBe('submitted');
    release();
    await poll(() => attribute(handle, JobStatus)).toBe('WAIT');
    expect(await attribute(handle, PartyState)).toBe('submitted');
    await handle.terminate('test over');
  });
});
