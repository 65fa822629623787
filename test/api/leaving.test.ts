// A company leaving us for another platform on a later day: the unregistration job takes `args.leave_on`, waits for
// that day with every record in place (cancellable meanwhile, the party still registered), then runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNREGISTRATION_WORKFLOW_ID, REGISTRATION_WORKFLOW_ID } from '../../domain/jobs/builtins';
import { temporalWorkflowId } from '../../domain/jobs/jobs';
import { createClients } from '../../integrations/clients';
import { startHarness, type Harness } from '../support/harness';
import { jobWhen } from '../support/jobs';
import { directoryHas, linesInForce, newParty, register, smlHas } from '../support/registration';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
const unregister = (entryId: string, args?: Record<string, string>) =>
  h.api('POST', '/transform/v1/jobs', {
    workflow_id: UNREGISTRATION_WORKFLOW_ID,
    silo_entry_id: entryId,
    ...(args && { args }),
  });

describe('leaving on a later day', () => {
  it('refuses a leaving day in the past, too far ahead, malformed, or on a registration', async () => {
    const entryId = await newParty(h);
    for (const leave_on of [day(-1), day(400), '2026-13-01', 'soon']) {
      const r = await h.api('POST', '/transform/v1/jobs', {
        workflow_id: UNREGISTRATION_WORKFLOW_ID,
        silo_entry_id: entryId,
        args: { leave_on },
      });
      expect([r.status, r.body.code, r.body.errors?.[0]?.path], leave_on).toEqual([
        400,
        'invalid-request',
        'body.args.leave_on',
      ]);
    }
    const reg = await h.api('POST', '/transform/v1/jobs', {
      workflow_id: REGISTRATION_WORKFLOW_ID,
      silo_entry_id: entryId,
      args: { leave_on: day(3) },
    });
    expect([reg.status, reg.body.detail]).toEqual([
      400,
      'invalid body: args.leave_on: only an unregistration takes a leaving day',
    ]);
  });

  it('keeps everything in place until the day (the Temporal UI says so); cancelled, the party stays registered', async () => {
    const entryId = await newParty(h);
    expect((await register(h, entryId)).status).toBe('OK');
    const siren = (await h.api('GET', `/silo/v1/entries/${entryId}`)).body.data.identities[0].code;
    const leave_on = day(7);
    const r = await unregister(entryId, { leave_on });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const handle = h.client.workflow.getHandle(temporalWorkflowId(r.body.id));
    await expect
      .poll(
        async () =>
          ((await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string }).currentDetails,
        {
          timeout: 15_000,
        },
      )
      .toMatch(new RegExp(`^Waiting until ${leave_on} to start: Step 1 of 3`));
    // The job says what it waits for, and until when; the entry too.
    const waiting = await jobWhen(h, r.body.id, ['WAIT']);
    expect([waiting.waiting_for, waiting.effective_on]).toEqual(['effective-date', leave_on]);
    expect((await h.api('GET', `/silo/v1/entries/${entryId}`)).body).toMatchObject({
      state: 'registered',
      waiting_for: 'effective-date',
      effective_on: leave_on,
      current_job: { id: r.body.id, status: 'WAIT', waiting_for: 'effective-date', effective_on: leave_on },
    });
    // Until then the company is ours: its line, its Peppol records.
    expect(linesInForce(h, siren)).toEqual([expect.objectContaining({ matriculePlateforme: h.config.PA_MATRICULE })]);
    expect([smlHas(h, siren), directoryHas(h, siren)]).toEqual([true, true]);

    const cancel = await h.api('POST', `/transform/v1/jobs/${r.body.id}/cancel`, { reason: 'the company stays' });
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    expect((await jobWhen(h, r.body.id, ['CANCEL'])).status).toBe('CANCEL');
    expect((await h.api('GET', `/silo/v1/entries/${entryId}`)).body.state).toBe('registered');
    const handleAttrs = (await handle.describe()).searchAttributes;
    expect([handleAttrs.PartyState, handleAttrs.JobStatus]).toEqual([['registered'], ['CANCEL']]);
    expect([smlHas(h, siren), linesInForce(h, siren)[0]?.matriculePlateforme]).toEqual([true, h.config.PA_MATRICULE]);
  });

  it('on the day, after the new platform took the lines over: the job ends OK and nothing goes back to 9998', async () => {
    const entryId = await newParty(h);
    expect((await register(h, entryId)).status).toBe('OK');
    const siren = (await h.api('GET', `/silo/v1/entries/${entryId}`)).body.data.identities[0].code;
    const today = day(0);
    const newPlatform = createClients(h.config).annuaire;
    for (const l of linesInForce(h, siren)) await newPlatform.endLine(l.idInstance, today);
    await newPlatform.createLine({ siren, matriculePlateforme: '0077', dateDebutEffet: today });

    const r = await unregister(entryId, { leave_on: today });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect((await jobWhen(h, r.body.id, ['OK', 'ERR'], 60_000)).status).toBe('OK');
    expect(linesInForce(h, siren).map((l) => l.matriculePlateforme)).toEqual(['0077']);
    expect([smlHas(h, siren), directoryHas(h, siren)]).toEqual([false, false]);
    expect((await h.api('GET', `/silo/v1/entries/${entryId}`)).body.state).toBe('void');
  });
});
