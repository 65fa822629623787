// What the Temporal UI says a parked run waits for (WaitingFor) where the party's state says nothing: a registered
// party's renewal, whose state stays `registered` through every hint; and a run started by a build before WaitingFor,
// which must replay its history (no write there for WaitingFor alone) and writes it when the API's sweep asks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDefinition } from '../../workflows/run-definition';
import { ADDRESS_UPDATE } from '../../contract/definitions';
import { JobStatus, PartyState, WaitingFor } from '../../contract/search-attributes';
import { showWaitingForSignal } from '../../contract/signals';
import { maybeRecordHistory } from '../support/record-history';
import { attribute, count, hint, poll, startFastWorker } from '../support/workflow-stubs';

let h: Awaited<ReturnType<typeof startFastWorker>>;
beforeAll(async () => {
  h = await startFastWorker();
});
afterAll(() => h?.close());

/** A renewal parked on its wait, its party registered; `before`: started as a build before WaitingFor did. */
async function renewal(before = false) {
  const run = await h.start(runDefinition, {
    definition: ADDRESS_UPDATE,
    ...(before && { showsWaitingFor: undefined }),
  });
  await poll(() => attribute(run.handle, JobStatus)).toBe('WAIT');
  return run;
}
const details = async (handle: Awaited<ReturnType<typeof renewal>>['handle']) =>
  ((await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string }).currentDetails;
const upserts = (handle: Awaited<ReturnType<typeof renewal>>['handle']) =>
  count(handle, 'upsertWorkflowSearchAttributesEventAttributes');

describe("a registered party's renewal", () => {
  it('shows each change of what it waits for, its state staying registered', async () => {
    const { handle, job } = await renewal();
    expect(await attribute(handle, WaitingFor)).toBe('signer');
    await hint.confirmed(handle, 'registered');
    await poll(() => attribute(handle, WaitingFor)).toBe('decision');
    await hint.decided(handle, false, 'registered');
    await poll(() => attribute(handle, WaitingFor)).toBe('resubmission');
    await hint.confirmed(handle, 'registered');
    await poll(() => attribute(handle, WaitingFor)).toBe('decision');
    expect(await attribute(handle, PartyState)).toBe('registered');
    job.approved = true;
    await hint.decided(handle, true, 'registered');
    expect(await handle.result()).toEqual({ status: 'OK', faults: [] });
    await maybeRecordHistory(handle, 'run-definition.renewal-hints');
    expect(await attribute(handle, WaitingFor)).toBeUndefined();
  });
});

describe('a run started by a build before WaitingFor', () => {
  it('writes it only with another change, as its history has it, and all of it when the sweep asks', async () => {
    const { handle, job } = await renewal(true);
    // The wait's start wrote JobStatus WAIT: WaitingFor rode with it; the first hint's party state, likewise.
    expect(await attribute(handle, WaitingFor)).toBe('signer');
    await hint.confirmed(handle, 'registered');
    await poll(() => attribute(handle, WaitingFor)).toBe('decision');
    const written = await upserts(handle);
    await hint.decided(handle, false, 'registered'); // the party's state unchanged: nothing written, as before
    await poll(() => details(handle)).toMatch(/waiting for a new submission/);
    expect(await count(handle, 'workflowTaskFailedEventAttributes')).toBe(0);
    expect(await upserts(handle)).toBe(written);
    expect(await attribute(handle, WaitingFor)).toBe('decision');
    await handle.signal(showWaitingForSignal); // the API's sweep, for runs it finds without WaitingFor
    await poll(() => attribute(handle, WaitingFor)).toBe('resubmission');
    job.approved = true;
    await hint.confirmed(handle, 'registered');
    await hint.decided(handle, true, 'registered');
    expect(await handle.result()).toEqual({ status: 'OK', faults: [] });
    expect(await attribute(handle, WaitingFor)).toBeUndefined();
  });
});
