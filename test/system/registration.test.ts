// Registration and unregistration end to end (seed §1–4, §7, §8): HTTP API → real Temporal dev server → activities
// → the Annuaire, SML and Peppol Directory simulators over HTTP.
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REGISTRATION_WORKFLOW_ID } from '../../domain/jobs/builtins';
import { startHarness, type Harness } from '../support/harness';
import { makeSiren } from '../../bin/stack/sample-parties';
import { b64, jpeg } from '../../bin/stack/sample-images';
import { jobWhen } from '../support/jobs';
import {
  approve,
  directoryHas,
  entryApi,
  linesInForce,
  newParty,
  register,
  signInApp,
  smlHas,
  startRegistration,
  startUnregistration,
} from '../support/registration';
import { pdfText } from '../support/pdf-text';
import { inkSigned } from '../support/signed-pdf';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const state = async (entryId: string) => (await h.api('GET', `/silo/v1/entries/${entryId}`)).body.state;

describe('registration', () => {
  it('in-app path (ID card, drawn signature) ends registered: one directory line, one SML entry, in the Directory', async () => {
    const siren = makeSiren();
    const entryId = await newParty(h, siren);
    const job = await register(h, entryId, 'drawn');
    expect(job.status, JSON.stringify(job.faults)).toBe('OK');
    expect(job.intents.map((i: any) => i.name)).toEqual([
      'Sign PPF agreement',
      'Set state',
      'Wait for PPF agreement upload',
      'Set state',
      'Register party in Directory',
      'Register party on Peppol',
      'Set state',
    ]);
    expect(await state(entryId)).toBe('registered');
    const lines = linesInForce(h, siren);
    expect(lines.map((l) => l.matriculePlateforme)).toEqual([h.config.PA_MATRICULE]);
    expect(smlHas(h, siren)).toBe(true);
    expect(directoryHas(h, siren)).toBe(true);
  });

  it('pre-signed path (passport page, uploaded PDF) ends registered', async () => {
    const siren = makeSiren();
    const entryId = await newParty(h, siren);
    const jobId = await startRegistration(h, entryId);
    await jobWhen(h, jobId, ['WAIT']);
    const mandate = await fetch(`${h.baseUrl}${entryApi(entryId)}/agreement`, {
      headers: { authorization: `Bearer ${h.apiKey}` },
    });
    // Signed outside: a handwritten signature drawn on the mandate (an ink annotation).
    const signedOutside = await inkSigned(new Uint8Array(await mandate.arrayBuffer()));
    expect((await h.api('POST', `${entryApi(entryId)}/identity`, { view: 'page', data: b64(jpeg()) })).status).toBe(
      204,
    );
    expect((await h.api('POST', `${entryApi(entryId)}/agreement`, { data: b64(signedOutside) })).status).toBe(204);
    expect((await h.api('POST', `${entryApi(entryId)}/confirm`)).body).toEqual({ status: 'submitted' });
    await expect.poll(() => state(entryId), { timeout: 15_000 }).toBe('submitted');
    await approve(h, entryId);
    expect((await jobWhen(h, jobId, ['OK', 'ERR'], 60_000)).status).toBe('OK');
    expect(await state(entryId)).toBe('registered');
  });

  it('each SIREN is registered once: a second registration is refused with 409 before anything changes', async () => {
    const siren = makeSiren();
    const first = await newParty(h, siren);
    const second = await newParty(h, siren);
    const running = await startRegistration(h, first);
    await jobWhen(h, running, ['WAIT']);
    const start = (entryId: string) =>
      h.api('POST', '/transform/v1/jobs', { workflow_id: REGISTRATION_WORKFLOW_ID, silo_entry_id: entryId });
    const whileRunning = await start(second);
    expect(whileRunning.status).toBe(409);
    expect(whileRunning.body.detail).toBe(
      `SIREN ${siren} is already being registered by job ${running} on entry ${first}: wait for it to end`,
    );

    await signInApp(h, first);
    await expect.poll(() => state(first), { timeout: 15_000 }).toBe('submitted');
    await approve(h, first);
    expect((await jobWhen(h, running, ['OK', 'ERR'], 60_000)).status).toBe('OK');
    const mandate = await mandateOf(first);

    const again = await start(first);
    expect(again.status).toBe(409);
    expect(again.body.detail).toBe(
      `entry ${first} is already registered (SIREN ${siren}): unregister it before registering it again`,
    );
    const other = await start(second);
    expect(other.status).toBe(409);
    expect(other.body.detail).toBe(
      `SIREN ${siren} is already registered by entry ${first}: unregister that entry first`,
    );
    // Nothing changed: the first is registered with its mandate, the second untouched, one line in the directory.
    expect(await state(first)).toBe('registered');
    expect(await mandateOf(first)).toEqual(mandate);
    expect(await state(second)).toBeUndefined();
    expect((await h.api('GET', `${entryApi(second)}/agreement`)).body.detail).toMatch(/no mandate has been issued/);
    expect(linesInForce(h, siren)).toHaveLength(1);
  });
});

describe('take-over from another PA', () => {
  it('without fr-former-matricule the registration fails and asks for it', async () => {
    const siren = makeSiren();
    h.sims.annuaire.seedLine({ siren, matriculePlateforme: '0042' });
    const entryId = await newParty(h, siren);
    const job = await register(h, entryId);
    expect(job.status).toBe('ERR');
    expect(job.faults[0]).toMatchObject({ provider: 'gov-fr.directory.register', code: 'takeover-identifier-missing' });
    expect(job.faults[0].message).toMatch(/fr-former-matricule/);
    expect(await state(entryId)).toBe('error');
    expect(linesInForce(h, siren).map((l) => l.matriculePlateforme)).toEqual(['0042']);
  });

  it('with fr-former-matricule the mandate carries the consent and the line is taken over, not duplicated', async () => {
    const siren = makeSiren();
    h.sims.annuaire.seedLine({ siren, matriculePlateforme: '0042' });
    const entryId = await newParty(h, siren);
    expect((await h.api('PUT', `/silo/v1/entries/${entryId}/meta/fr-former-matricule`, { value: '0042' })).status).toBe(
      200,
    );
    const jobId = await startRegistration(h, entryId);
    await jobWhen(h, jobId, ['WAIT']);
    const mandate = await fetch(`${h.baseUrl}${entryApi(entryId)}/agreement`, {
      headers: { authorization: `Bearer ${h.apiKey}` },
    });
    const text = pdfText(new Uint8Array(await mandate.arrayBuffer()));
    expect(text).toContain('Plateforme agréée précédente : matricule 0042');
    expect(text).toMatch(
      /Consentement à la reprise : l’entreprise consent à ce que .* mette fin aux lignes d’annuaire tenues par la plateforme 0042/,
    );
    await signInApp(h, entryId);
    await expect.poll(() => state(entryId), { timeout: 15_000 }).toBe('submitted');
    await approve(h, entryId);
    const job = await jobWhen(h, jobId, ['OK', 'ERR'], 60_000);
    expect(job.status, JSON.stringify(job.faults)).toBe('OK');
    expect(linesInForce(h, siren).map((l) => l.matriculePlateforme)).toEqual([h.config.PA_MATRICULE]);
    const old = h.sims.annuaire.lines().find((l) => l.siren === siren && l.matriculePlateforme === '0042')!;
    expect(old.dateFinEffet).toBe(new Date().toISOString().slice(0, 10));
  });
});

describe('unregistration', () => {
  it('withdraws from Peppol and the directory and ends void, keeping earlier data', async () => {
    const siren = makeSiren();
    const entryId = await newParty(h, siren);
    expect((await register(h, entryId)).status).toBe('OK');
    const jobId = await startUnregistration(h, entryId);
    const job = await jobWhen(h, jobId, ['OK', 'ERR'], 60_000);
    expect(job.status, JSON.stringify(job.faults)).toBe('OK');
    expect(await state(entryId)).toBe('void');
    expect(smlHas(h, siren)).toBe(false);
    expect(directoryHas(h, siren)).toBe(false);
    expect(linesInForce(h, siren).map((l) => l.matriculePlateforme)).toEqual(['9998']);
    // History is kept: our ended line is still there, and so is the entry with its mandate.
    expect(
      h.sims.annuaire.lines().some((l) => l.siren === siren && l.matriculePlateforme === h.config.PA_MATRICULE),
    ).toBe(true);
    expect(
      (await fetch(`${h.baseUrl}${entryApi(entryId)}/agreement`, { headers: { authorization: `Bearer ${h.apiKey}` } }))
        .status,
    ).toBe(200);
  });
});

describe('a registration run again', () => {
  it('after a take-over failure, with the identifier set, issues a new mandate to sign and registers', async () => {
    const siren = makeSiren();
    h.sims.annuaire.seedLine({ siren, matriculePlateforme: '0042' });
    const entryId = await newParty(h, siren);
    const failed = await register(h, entryId);
    expect(failed.faults[0].code).toBe('takeover-identifier-missing');
    const firstNumber = (await PDFDocument.load(await mandateOf(entryId))).getTitle();

    await h.api('PUT', `/silo/v1/entries/${entryId}/meta/fr-former-matricule`, { value: { matricule: '0042' } });
    const jobId = await startRegistration(h, entryId);
    // Only one job at a time on an entry.
    const second = await h.api('POST', '/transform/v1/jobs', {
      workflow_id: REGISTRATION_WORKFLOW_ID,
      silo_entry_id: entryId,
    });
    expect(second.status).toBe(409);
    expect(second.body.detail).toContain(`already has job ${jobId} (`);
    expect(second.body.detail).toContain(`POST /transform/v1/jobs/${jobId}/cancel`);

    await jobWhen(h, jobId, ['WAIT']);
    const mandate = await mandateOf(entryId);
    expect((await PDFDocument.load(mandate)).getTitle()).not.toBe(firstNumber);
    expect((await PDFDocument.load(mandate)).getTitle()).toMatch(/_02$/);
    expect(pdfText(mandate)).toContain('Consentement à la reprise');
    // The earlier signature was for the earlier mandate: confirming needs a new one.
    expect((await h.api('POST', `${entryApi(entryId)}/confirm`)).body.detail).toMatch(/signature/);
    await signInApp(h, entryId);
    await expect.poll(() => state(entryId), { timeout: 15_000 }).toBe('submitted');
    await approve(h, entryId);
    expect((await jobWhen(h, jobId, ['OK', 'ERR'], 60_000)).status).toBe('OK');
    expect(await state(entryId)).toBe('registered');
    expect(linesInForce(h, siren).map((l) => l.matriculePlateforme)).toEqual([h.config.PA_MATRICULE]);
  });
});

async function mandateOf(entryId: string): Promise<Uint8Array> {
  const res = await fetch(`${h.baseUrl}${entryApi(entryId)}/agreement`, {
    headers: { authorization: `Bearer ${h.apiKey}` },
  });
  return new Uint8Array(await res.arrayBuffer());
}
