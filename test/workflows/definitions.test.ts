// A workspace's own definition (runDefinition) and the unregistration, with stub activities.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDefinition } from '../../workflows/run-definition';
import { unregistration } from '../../workflows/unregistration';
import { JobStatus, PartyState } from '../../contract/search-attributes';
import type { Definition, Step } from '../../contract/job';
import { attribute, count, hint, poll, startFastWorker } from '../support/workflow-stubs';

let h: Awaited<ReturnType<typeof startFastWorker>>;
beforeAll(async () => {
  h = await startFastWorker();
});
afterAll(() => h?.close());

const WAIT = 'gov-fr.agreement.wait.approval';
let n = 0;
const step = (provider: string, config?: Record<string, unknown>): Step => ({
  id: `step-${++n}`,
  name: provider,
  provider,
  ...(config && { config }),
});
const state = (s: string) => step('silo.state', { state: s });
const definition = (...steps: Step[]): Definition => ({ steps, rescue: [state('error')] });

describe('runDefinition', () => {
  it('runs a custom definition in order; its last step ends the job OK', async () => {
    const { handle, job } = await h.start(runDefinition, {
      definition: definition(state('processing'), step('webhook'), state('completed')),
    });
    expect(await handle.result()).toEqual({ status: 'OK', faults: [] });
    expect(job.calls.map((c) => [c.state ?? c.provider, c.status])).toEqual([
      ['processing', undefined],
      ['webhook', undefined],
      ['completed', 'OK'],
    ]);
    expect(job.calls.map((c) => c.lines)).toEqual([
      ['silo.state start RUN', 'silo.state end OK'],
      ['webhook start RUN', 'webhook end OK'],
      ['silo.state start RUN', 'silo.state end OK'],
    ]);
    expect(await count(handle, 'activityTaskScheduledEventAttributes')).toBe(3); // nothing but the steps
    expect(await attribute(handle, PartyState)).toBe('completed');
    expect(await attribute(handle, JobStatus)).toBe('OK');
  });

  it('with the approval wait first, records what is owed through the journal activity before waiting', async () => {
    const { handle, job } = await h.start(runDefinition, { definition: definition(step(WAIT), state('completed')) });
    await poll(async () => job.calls.length).toBe(1);
    expect(job.calls[0]).toMatchObject({
      provider: 'job.journal',
      lines: [`${WAIT} start RUN`],
      status: 'WAIT',
      requiresApproval: false,
    });
    job.approved = true;
    await hint.decided(handle, true);
    expect(await handle.result()).toEqual({ status: 'OK', faults: [] });
    expect(job.calls[1]).toMatchObject({
      state: 'completed',
      status: 'OK',
      requiresApproval: true,
      refused: false,
      lines: [`${WAIT} end OK`, 'silo.state start RUN', 'silo.state end OK'],
    });
    expect(job.calls).toHaveLength(2);
  });

  it("with the approval wait first, the journal activity records the wait's start and the job WAIT", async () => {
    const { handle, job } = await h.start(runDefinition, { definition: definition(step(WAIT), state('completed')) });
    try {
      await poll(async () => job.calls.length).toBe(1);
      expect(job.calls[0]).toMatchObject({ provider: 'job.journal', lines: [`${WAIT} start RUN`], status: 'WAIT' });
      await poll(() => attribute(handle, JobStatus)).toBe('WAIT');
    } finally {
      await handle.terminate('test over');
    }
  });
});

describe('unregistration', () => {
  it('runs to OK: off Peppol, out of the directory, the party void', async () => {
    const { handle, job } = await h.start(unregistration, {});
    expect(await handle.result()).toEqual({ status: 'OK', faults: [] });
    expect(job.calls.map((c) => [c.state ?? c.provider, c.status])).toEqual([
      ['peppol.unregister', undefined],
      ['gov-fr.directory.disable', undefined],
      ['void', 'OK'],
    ]);
    expect(await attribute(handle, PartyState)).toBe('void');
    expect(await attribute(handle, JobStatus)).toBe('OK');
  });
});
