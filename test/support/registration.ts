// Driving a whole registration through the public API, as an integrator and an operator would.
import crypto from 'node:crypto';
import { expect } from 'vitest';
import {
  ADDRESS_UPDATE_WORKFLOW_ID,
  REGISTRATION_WORKFLOW_ID,
  UNREGISTRATION_WORKFLOW_ID,
} from '../../domain/jobs/builtins';
import type { Harness } from './harness';
import { makeSiren, party } from '../../bin/stack/sample-parties';
import { b64, jpeg, png } from '../../bin/stack/sample-images';
import { jobWhen } from './jobs';

export const entryApi = (id: string) => `/apps/gov-fr/v1/entry/${id}`;

export async function newParty(h: Harness, siren = makeSiren()): Promise<string> {
  const id = crypto.randomUUID();
  const r = await h.api('PUT', `/silo/v1/entries/${id}`, { data: party(siren) });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return id;
}

export async function startRegistration(
  h: Harness,
  entryId: string,
  workflowId = REGISTRATION_WORKFLOW_ID,
): Promise<string> {
  const r = await h.api('POST', '/transform/v1/jobs', { workflow_id: workflowId, silo_entry_id: entryId });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  return r.body.id;
}

export const startUnregistration = (h: Harness, entryId: string) =>
  startRegistration(h, entryId, UNREGISTRATION_WORKFLOW_ID);

/** In-app path: ID card front and back, a drawn or typed signature, confirm. */
export async function signInApp(h: Harness, entryId: string, signature: 'drawn' | 'typed' = 'typed') {
  expect((await h.api('POST', `${entryApi(entryId)}/identity`, { view: 'front', data: b64(png()) })).status).toBe(204);
  expect((await h.api('POST', `${entryApi(entryId)}/identity`, { view: 'back', data: b64(jpeg()) })).status).toBe(204);
  const sig = signature === 'drawn' ? { signature: b64(png()) } : {};
  expect((await h.api('POST', `${entryApi(entryId)}/sign`, sig)).status).toBe(204);
  const c = await h.api('POST', `${entryApi(entryId)}/confirm`);
  expect(c.body).toEqual({ status: 'submitted' });
}

export async function approve(h: Harness, entryId: string) {
  const r = await h.api('POST', `${entryApi(entryId)}/decision`, { approved: true });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

/** Registration to the approval wait, signed, confirmed and approved; returns the finished job. */
export async function register(h: Harness, entryId: string, signature: 'drawn' | 'typed' = 'typed') {
  const jobId = await startRegistration(h, entryId);
  await jobWhen(h, jobId, ['WAIT']);
  await signInApp(h, entryId, signature);
  await expect
    .poll(async () => (await h.api('GET', `/silo/v1/entries/${entryId}`)).body.state, { timeout: 15_000 })
    .toBe('submitted');
  await approve(h, entryId);
  return jobWhen(h, jobId, ['OK', 'ERR'], 60_000);
}

/** Lines of the Annuaire simulator in force today for a SIREN. */
export function linesInForce(h: Harness, siren: string) {
  const today = new Date().toISOString().slice(0, 10);
  return h.sims.annuaire
    .lines()
    .filter((l) => l.siren === siren && l.dateDebutEffet <= today && (!l.dateFinEffet || l.dateFinEffet > today));
}

export const smlHas = (h: Harness, siren: string) =>
  h.sims.sml.participants(h.config.SMP_ID).some((p) => p.endsWith(`0225:${siren}`));
export const directoryHas = (h: Harness, siren: string) =>
  h.sims.directory.indexed().some((p) => p.endsWith(`0225:${siren}`));

/**
 * A party registered for its SIREN address alone (mandate listing it), whose address update to add `<SIREN>_EU` now
 * waits for the signer of a new mandate. Returns the mandate in force, which the new one replaces.
 */
export async function renewalAwaitingSigner(h: Harness, name?: string) {
  const siren = makeSiren();
  const entryId = crypto.randomUUID();
  expect((await h.api('PUT', `/silo/v1/entries/${entryId}`, { data: party(siren, name ? { name } : {}) })).status).toBe(
    200,
  );
  const addresses = (list: unknown[]) =>
    h.api('PUT', `/silo/v1/entries/${entryId}/meta/fr-invoicing-addresses`, {
      value: { entrust: 'listed', addresses: list },
    });
  expect((await addresses([{}])).status).toBe(200);
  expect((await register(h, entryId)).status).toBe('OK');
  const inForce = (
    await h.db.query<{ n: string }>('SELECT mandate_number AS n FROM mandates WHERE entry_id = $1', [entryId])
  ).rows[0]!.n;
  expect((await addresses([{}, { suffix: 'EU' }])).status).toBe(200);
  const jobId = await startRegistration(h, entryId, ADDRESS_UPDATE_WORKFLOW_ID);
  expect((await jobWhen(h, jobId, ['WAIT'])).waiting_for).toBe('signer');
  return { entryId, siren, jobId, inForce };
}
