// What a new integrator met trying the API from its reference alone (issue 43): lists filtered by what they look
// for, missing fields named as missing, the built-in workflows and the typed meta values in /openapi.json, and
// examples that do not expire.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness';
import { jobWhen } from '../support/jobs';
import { entryApi, newParty, signInApp, startRegistration } from '../support/registration';
import { ADDRESS_UPDATE_WORKFLOW_ID } from '../../domain/jobs/builtins';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('lists filtered by what an integrator looks for', () => {
  it('entries by state, jobs by what they wait for; other values are a 400 listing the right ones', async () => {
    const waiting = await newParty(h);
    const idle = await newParty(h);
    const submitted = await newParty(h);
    const waitingJob = await startRegistration(h, waiting);
    const submittedJob = await startRegistration(h, submitted);
    await jobWhen(h, waitingJob, ['WAIT']);
    await jobWhen(h, submittedJob, ['WAIT']);
    await signInApp(h, submitted);

    const inState = async (state: string) =>
      (await h.api('GET', `/silo/v1/entries?state=${state}&limit=100`)).body.list.map((e: any) => e.id);
    expect(await inState('processing')).toContain(waiting);
    expect(await inState('processing')).not.toContain(idle);
    expect(await inState('submitted')).toEqual([submitted]);
    const page = await h.api('GET', '/silo/v1/entries?state=submitted');
    expect(page.body.state).toBe('submitted');

    const waitingFor = async (what: string) =>
      (await h.api('GET', `/transform/v1/jobs?waiting_for=${what}&limit=100`)).body.list.map((j: any) => j.id);
    expect(await waitingFor('signer')).toEqual([waitingJob]);
    expect(await waitingFor('decision')).toEqual([submittedJob]);
    expect(await waitingFor('resubmission')).toEqual([]);

    const badState = await h.api('GET', '/silo/v1/entries?state=done');
    expect(badState.status).toBe(400);
    expect(badState.body.errors[0]).toMatchObject({
      path: 'query.state',
      message: expect.stringMatching(/registered/),
    });
    const badWait = await h.api('GET', '/transform/v1/jobs?waiting_for=godot');
    expect(badWait.status).toBe(400);
    expect(badWait.body.errors[0].message).toMatch(/signer, decision, second-decision, resubmission, effective-date/);
  });
});

describe('errors a newcomer can act on', () => {
  it('a field left out is "required", whatever its type; a wrong one says what it must be', async () => {
    const entry = await newParty(h);
    const missing = await h.api('POST', '/transform/v1/jobs', { silo_entry_id: entry });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([{ path: 'body.workflow_id', message: expect.stringMatching(/^required/) }]);
    const wrong = await h.api('POST', '/transform/v1/jobs', { workflow_id: 'x', silo_entry_id: entry });
    expect(wrong.body.errors).toEqual([{ path: 'body.workflow_id', message: 'must be a UUID' }]);
    const decision = await h.api('POST', `${entryApi(entry)}/decision`, {});
    expect(decision.body.errors[0]).toMatchObject({
      path: 'body.approved',
      message: expect.stringMatching(/^required/),
    });
  });
});

describe('the reference', () => {
  it('names the built-in workflows, types the meta values the service reads, and says what a meta key is', async () => {
    const doc = (await h.api('GET', '/openapi.json', undefined, null)).body;
    expect(JSON.stringify(doc.paths['/transform/v1/jobs'].post)).toContain(ADDRESS_UPDATE_WORKFLOW_ID);

    const typed = doc.paths['/silo/v1/entries/{id}/meta/fr-invoicing-addresses'].put;
    expect(typed.operationId).toBe('putInvoicingAddresses');
    const body = typed.requestBody.content['application/json'].schema;
    expect(body.properties.value.properties.addresses.type).toBe('array');
    expect(body.properties.value.properties.entrust.enum).toEqual(['listed', 'all']);
    expect(doc.paths['/silo/v1/entries/{id}/meta/fr-former-matricule'].put).toBeDefined();
    expect(doc.paths['/silo/v1/entries/{id}/meta/peppol-migration-key'].put).toBeDefined();

    const generic = doc.paths['/silo/v1/entries/{id}/meta/{key}'].put.parameters;
    expect(generic.find((p: any) => p.name === 'key').description).toMatch(/meta row's key/);
  });

  it('gives short, unique operation ids', async () => {
    const doc = (await h.api('GET', '/openapi.json', undefined, null)).body;
    const ids = Object.values(doc.paths).flatMap((p: any) => Object.values(p).map((op: any) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id, id).toMatch(/^[a-z][A-Za-z]{2,29}$/);
  });

  it('gives example start days that have not passed', async () => {
    const doc = JSON.stringify((await h.api('GET', '/openapi.json', undefined, null)).body);
    const today = new Date().toISOString().slice(0, 10);
    const days = [...doc.matchAll(/"(?:start|leave_on)":"(\d{4}-\d{2}-\d{2})"/g)].map((m) => m[1]!);
    expect(days.length).toBeGreaterThan(1);
    for (const day of days) expect(day > today, day).toBe(true);
  });
});
