// A registered company changes its legal name or its signer (issue 43): the change is kept, the mandate it is
// registered under stays in force, and the address update has a new mandate signed and approved — no unregistration,
// never off the directory or Peppol meanwhile.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness';
import { jobWhen } from '../support/jobs';
import {
  approve,
  directoryHas,
  linesInForce,
  smlHas,
  entryApi,
  newParty,
  register,
  signInApp,
  startRegistration,
} from '../support/registration';
import { pdfText } from '../support/pdf-text';
import { ADDRESS_UPDATE_WORKFLOW_ID, UNREGISTRATION_WORKFLOW_ID } from '../../domain/jobs/builtins';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** The name the Peppol Directory shows for the SIREN's participant, and the one our SMP would give it now. */
const shownName = async (siren: string) => {
  const participant = `iso6523-actorid-upis::0225:${siren}`;
  const nameIn = (xml: string | undefined) => /<Name>([^<]*)<\/Name>/.exec(xml ?? '')?.[1];
  const smp = await fetch(`${h.baseUrl}/smp/businesscard/${encodeURIComponent(participant)}`);
  return { directory: nameIn(h.sims.directory.businessCard(participant)), smp: nameIn(await smp.text()) };
};

const mandateNumber = async (id: string) =>
  (await h.db.query<{ n: string }>('SELECT mandate_number AS n FROM mandates WHERE entry_id = $1', [id])).rows[0]!.n;

describe('a registered party renamed', () => {
  it('keeps its registration and signs a new mandate with the new name, the old one in force meanwhile', async () => {
    const id = await newParty(h);
    const siren = (await h.api('GET', `/silo/v1/entries/${id}`)).body.data.identities[0].code as string;
    expect((await register(h, id)).status).toBe('OK');
    const first = await mandateNumber(id);
    const before = (await shownName(siren)).directory;
    expect(before).toBe('Boulangerie Exemple SAS');

    const patch = await h.api('PATCH', `/silo/v1/entries/${id}`, {
      content_type: 'application/merge-patch+json',
      data: { name: 'Nouvelle Raison Sociale SAS' },
    });
    expect(patch.status, JSON.stringify(patch.body)).toBe(200);
    expect(patch.body.mandate_renewal).toEqual({ changed: ['name'], workflow_id: ADDRESS_UPDATE_WORKFLOW_ID });
    expect(patch.body.state).toBe('registered');
    // Nothing changed outside yet: the mandate in force still names the company as it was.
    expect(await mandateNumber(id)).toBe(first);
    expect(directoryHas(h, siren)).toBe(true);
    expect(smlHas(h, siren)).toBe(true);
    // Peppol shows the company as the mandate in force states it until the new one is approved.
    expect(await shownName(siren)).toEqual({ directory: before, smp: before });

    const job = await startRegistration(h, id, ADDRESS_UPDATE_WORKFLOW_ID);
    const waiting = await jobWhen(h, job, ['WAIT', 'OK', 'ERR'], 30_000);
    expect([waiting.status, waiting.waiting_for]).toEqual(['WAIT', 'signer']);
    const renew = waiting.intents.find((i: { provider: string }) => i.provider === 'gov-fr.agreement.renew');
    expect(renew.events.at(-1).message).toBe(`new mandate to sign: name changed since mandate ${first}`);
    const pdf = await fetch(`${h.baseUrl}${entryApi(id)}/agreement`, {
      headers: { authorization: `Bearer ${h.apiKey}` },
    });
    expect(pdfText(new Uint8Array(await pdf.arrayBuffer()))).toContain('Nouvelle Raison Sociale SAS');
    const second = await mandateNumber(id);
    expect(second).not.toBe(first);
    // The signer and the operator are told what the new mandate changes, and what the one in force said.
    const review = await h.api('GET', `/apps/gov-fr/v1/review/submissions/${id}`);
    expect(review.body.replaces).toEqual({
      mandate_number: first,
      new_addresses: [],
      changed: [{ fact: 'name', was: 'Boulangerie Exemple SAS' }],
    });
    expect(linesInForce(h, siren).map((l) => l.identifiantAdressage)).toEqual([siren]);

    await signInApp(h, id);
    // Submitted for a decision, the party stays registered: the mandate in force still holds.
    const submitted = (await h.api('GET', `/silo/v1/entries/${id}`)).body;
    expect([submitted.state, submitted.waiting_for]).toEqual(['registered', 'decision']);
    expect(
      (await h.api('GET', '/silo/v1/entries?state=registered')).body.list.map((e: { id: string }) => e.id),
    ).toContain(id);
    await approve(h, id);
    const done = await jobWhen(h, job, ['OK', 'ERR'], 60_000);
    expect(done.status, JSON.stringify(done.faults)).toBe('OK');
    expect((await h.api('GET', `/silo/v1/entries/${id}`)).body.state).toBe('registered');
    expect(linesInForce(h, siren).map((l) => l.identifiantAdressage)).toEqual([siren]);
    expect(smlHas(h, siren)).toBe(true);
    // The Peppol Directory was asked to read the card again: it shows the new name.
    expect(await shownName(siren)).toEqual({
      directory: 'Nouvelle Raison Sociale SAS',
      smp: 'Nouvelle Raison Sociale SAS',
    });
    // The new mandate is in force; the one it replaced is kept as evidence.
    expect(await mandateNumber(id)).toBe(second);
    const kept = await h.db.query('SELECT mandate_number FROM superseded_mandates WHERE entry_id = $1', [id]);
    expect(kept.rows).toEqual([{ mandate_number: first }]);
  });

  it('corrected again before the signer signs: the new mandate still replaces the one in force', async () => {
    const id = await newParty(h);
    expect((await register(h, id)).status).toBe('OK');
    const inForce = await mandateNumber(id);
    const rename = (name: string) =>
      h.api('PATCH', `/silo/v1/entries/${id}`, { content_type: 'application/merge-patch+json', data: { name } });
    expect((await rename('Premier Nouveau Nom SAS')).status).toBe(200);
    const job = await startRegistration(h, id, ADDRESS_UPDATE_WORKFLOW_ID);
    expect((await jobWhen(h, job, ['WAIT'])).waiting_for).toBe('signer');
    const issued = await mandateNumber(id);
    const corrected = await rename('Second Nouveau Nom SAS');
    expect(corrected.status, JSON.stringify(corrected.body)).toBe(200);
    expect(await mandateNumber(id)).not.toBe(issued); // issued again under the next number
    // The operator (and the signer) are still told it replaces the mandate in force.
    const review = await h.api('GET', `/apps/gov-fr/v1/review/submissions/${id}`);
    expect(review.body.replaces).toMatchObject({ mandate_number: inForce });
    // Cancelled, the mandate in force is the one it was.
    expect((await h.api('POST', `/transform/v1/jobs/${job}/cancel`, { reason: 'not yet' })).status).toBe(200);
    expect(await mandateNumber(id)).toBe(inForce);
    expect((await h.api('GET', `/silo/v1/entries/${id}`)).body.state).toBe('registered');
  });

  it('a change outside the mandate asks for no renewal; an unchanged mandate is not signed again', async () => {
    const id = await newParty(h);
    expect((await register(h, id)).status).toBe('OK');
    const patch = await h.api('PATCH', `/silo/v1/entries/${id}`, {
      content_type: 'application/merge-patch+json',
      data: { emails: [{ addr: 'factures@exemple.fr' }] },
    });
    expect(patch.status).toBe(200);
    expect(patch.body.mandate_renewal).toBeUndefined();
    const job = await startRegistration(h, id, ADDRESS_UPDATE_WORKFLOW_ID);
    expect((await jobWhen(h, job, ['OK', 'ERR'], 60_000)).status).toBe('OK');
  });

  it('while another job acts on the registered party (leaving on a day), what the mandate says cannot change', async () => {
    const id = await newParty(h);
    expect((await register(h, id)).status).toBe('OK');
    const leaveOn = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const leaving = await h.api('POST', '/transform/v1/jobs', {
      workflow_id: UNREGISTRATION_WORKFLOW_ID,
      silo_entry_id: id,
      args: { leave_on: leaveOn },
    });
    expect(leaving.status, JSON.stringify(leaving.body)).toBe(202);
    expect((await jobWhen(h, leaving.body.id, ['WAIT'])).waiting_for).toBe('effective-date');
    const patch = await h.api('PATCH', `/silo/v1/entries/${id}`, {
      content_type: 'application/merge-patch+json',
      data: { name: 'Autre Nom SAS' },
    });
    expect([patch.status, patch.body.code]).toEqual([409, 'job-running']);
    expect(patch.body.detail).toContain(`/transform/v1/jobs/${leaving.body.id}/cancel`);
    expect((await h.api('POST', `/transform/v1/jobs/${leaving.body.id}/cancel`)).status).toBe(200);
  });
});
