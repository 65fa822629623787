// A registration waiting for the operator: entry, mandate signed in the app, identity page, confirmed.
import crypto from 'node:crypto';
import { expect } from 'vitest';
import { eventually, type Harness } from './harness';
import { makeSiren, party } from '../../bin/stack/sample-parties';
import { b64, png } from '../../bin/stack/sample-images';
import { createWorkflow, jobWhen, setState, startJob, step } from './jobs';

export interface Submission {
  entryId: string;
  jobId: string;
  siren: string;
}

/** Runs a sign-then-wait registration to the approval wait and submits it, or stops once the mandate is issued or signed. */
export async function submittedEntry(
  h: Harness,
  o: {
    name: string;
    siren?: string;
    stopAt?: 'issued' | 'signed';
    /** party fields to replace (undefined drops one) */ party?: Record<string, unknown>;
  },
): Promise<Submission> {
  const entryId = crypto.randomUUID();
  const siren = o.siren ?? makeSiren();
  expect(
    (await h.api('PUT', `/silo/v1/entries/${entryId}`, { data: party(siren, { name: o.name, ...o.party }) })).status,
  ).toBe(200);
  const wf = await createWorkflow(h, [
    step('gov-fr.agreement.sign'),
    setState('processing'),
    step('gov-fr.agreement.wait.approval'),
    setState('completed'),
  ]);
  const jobId = await startJob(h, wf, entryId);
  await jobWhen(h, jobId, ['WAIT']);
  const e = `/apps/gov-fr/v1/entry/${entryId}`;
  if (o.stopAt === 'issued') return { entryId, jobId, siren };
  expect((await h.api('POST', `${e}/identity`, { view: 'page', data: b64(png(120, 80)) })).status).toBe(204);
  expect((await h.api('POST', `${e}/sign`, {})).status).toBe(204);
  if (o.stopAt === 'signed') return { entryId, jobId, siren };
  expect((await h.api('POST', `${e}/confirm`)).status).toBe(200);
  await eventually(
    async () => (await h.api('GET', `/silo/v1/entries/${entryId}`)).body.state === 'submitted',
    15_000,
    `entry ${entryId} submitted`,
  );
  return { entryId, jobId, siren };
}
