// A registration driven over HTTP as an integrator and an operator would, step by step, for many parties at once
// against a cluster (bin/stack/cluster.ts). Each call checks its status and says which party failed; no vitest.
import crypto from 'node:crypto';
import { countJobsByStatus } from '../../platform/store/job-views';
import { REGISTRATION_WORKFLOW_ID, UNREGISTRATION_WORKFLOW_ID } from '../../domain/jobs/builtins';
import { callApi, type ApiJson, type Cluster } from './cluster';
import { makeSiren, party, type SampleAddresses } from './sample-parties';
import { b64, jpeg, png } from './sample-images';
import { sentAgainWhenBusy } from './retry-after';
import { sealPdf, type SealKey } from '../../domain/mandate-document/seal';

export interface Onboarding {
  siren: string;
  entryId: string;
  jobId?: string;
  /** The invoicing addresses stated (meta fr-invoicing-addresses); the SIREN address alone when absent. */
  addresses?: SampleAddresses;
}

const FRONT = b64(png());
const BACK = b64(jpeg());
const entry = (id: string) => `/apps/gov-fr/v1/entry/${id}`;

/** Distinct valid SIRENs for a run: consecutive seeds from a random start, so no two parties collide. */
export function sirens(n: number): string[] {
  const start = crypto.randomInt(0, 99_000_000);
  return Array.from({ length: n }, (_, i) => makeSiren((start + i) % 100_000_000));
}

async function expectStatus(
  c: Cluster,
  expected: number,
  method: string,
  p: string,
  body?: unknown,
  api = 0,
): Promise<ApiJson> {
  // Busy file checks answer 503 with Retry-After (for a minute, on a loaded machine): the driver comes back then.
  const r = await sentAgainWhenBusy(() => callApi(c, method, p, body, api), [503]);
  if (r.status !== expected)
    throw new Error(`${method} ${p} → ${r.status} (expected ${expected}): ${JSON.stringify(r.body).slice(0, 300)}`);
  return r.body;
}

/**
 * PUT the party (and its invoicing addresses, if given), then POST its registration job. `api` picks the API
 * process.
 */
export async function createAndStart(
  c: Cluster,
  siren: string,
  api = 0,
  addresses?: SampleAddresses,
): Promise<Onboarding> {
  const entryId = crypto.randomUUID();
  await expectStatus(c, 200, 'PUT', `/silo/v1/entries/${entryId}`, { data: party(siren) }, api);
  if (addresses) {
    const meta = `/silo/v1/entries/${entryId}/meta/fr-invoicing-addresses`;
    await expectStatus(c, 200, 'PUT', meta, { value: addresses.value }, api);
  }
  const job = await expectStatus(
    c,
    202,
    'POST',
    '/transform/v1/jobs',
    { workflow_id: REGISTRATION_WORKFLOW_ID, silo_entry_id: entryId },
    api,
  );
  return { siren, entryId, jobId: job.id, ...(addresses && { addresses }) };
}

/** POST the unregistration job of a registered entry; resolves with its job id. */
export async function startUnregistration(c: Cluster, entryId: string, api = 0): Promise<string> {
  const job = await expectStatus(
    c,
    202,
    'POST',
    '/transform/v1/jobs',
    { workflow_id: UNREGISTRATION_WORKFLOW_ID, silo_entry_id: entryId },
    api,
  );
  return job.id as string;
}

/** The signer's part: both sides of the ID card, a typed signature, confirmation. */
export async function signAndConfirm(c: Cluster, entryId: string, api = 0): Promise<void> {
  await expectStatus(c, 204, 'POST', `${entry(entryId)}/identity`, { view: 'front', data: FRONT }, api);
  await expectStatus(c, 204, 'POST', `${entry(entryId)}/identity`, { view: 'back', data: BACK }, api);
  await expectStatus(c, 204, 'POST', `${entry(entryId)}/sign`, {}, api);
  const confirmed = await expectStatus(c, 200, 'POST', `${entry(entryId)}/confirm`, undefined, api);
  if (confirmed.status !== 'submitted') throw new Error(`confirm ${entryId}: ${JSON.stringify(confirmed)}`);
}

/**
 * As signAndConfirm, the mandate signed digitally: downloaded, signed with `key` (a certificate naming the signer),
 * uploaded, then confirmed.
 */
export async function signDigitallyAndConfirm(c: Cluster, entryId: string, key: SealKey, api = 0): Promise<void> {
  await expectStatus(c, 204, 'POST', `${entry(entryId)}/identity`, { view: 'front', data: FRONT }, api);
  await expectStatus(c, 204, 'POST', `${entry(entryId)}/identity`, { view: 'back', data: BACK }, api);
  const res = await fetch(`${c.apiUrls[api]}${entry(entryId)}/agreement`, {
    headers: { authorization: `Bearer ${c.apiKey}` },
  });
  if (!res.ok) throw new Error(`GET agreement ${entryId}: ${res.status}`);
  const info = { name: 'Signataire', reason: "J'accepte", location: 'Paris', contact: '' };
  const signed = await sealPdf(Buffer.from(await res.arrayBuffer()), key, info);
  await expectStatus(c, 204, 'POST', `${entry(entryId)}/agreement`, { data: b64(signed) }, api);
  const confirmed = await expectStatus(c, 200, 'POST', `${entry(entryId)}/confirm`, undefined, api);
  if (confirmed.status !== 'submitted') throw new Error(`confirm ${entryId}: ${JSON.stringify(confirmed)}`);
}

export const approve = (c: Cluster, entryId: string, api = 0) =>
  expectStatus(c, 200, 'POST', `${entry(entryId)}/decision`, { approved: true }, api);

export const jobStatus = async (c: Cluster, jobId: string) =>
  (await expectStatus(c, 200, 'GET', `/transform/v1/jobs/${jobId}`)).status as string;
export const entryState = async (c: Cluster, entryId: string) =>
  (await expectStatus(c, 200, 'GET', `/silo/v1/entries/${entryId}`)).state as string;

/** Runs `fn` over `items` with at most `concurrency` in flight; resolves with results in order. */
export async function pool<T, R>(
  items: T[],
  concurrency: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

/** Job statuses counted straight from the store, cheaper than asking the API for each of thousands. */
export async function jobCounts(c: Cluster): Promise<Record<string, number>> {
  return Object.fromEntries((await countJobsByStatus(c.db)).map((r) => [r.status, r.n]));
}

/** Polls `fn` every `everyMs` until it returns true; throws with `what` after `timeoutMs`. */
export async function waitUntil(
  fn: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
  everyMs = 500,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
