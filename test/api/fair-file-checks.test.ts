// Fair shares of the file checks (issue 40 §2): workspace B floods the inspection pool (2 children, queue 32) from
// 18 registrations, two pre-signed uploads in flight each — the costliest mandates the limits accept, half through
// the wizard, half through the entry API —, while the signer of workspace A uploads an identity image and a
// pre-signed mandate, 20 times each. A is never told the checks are busy and waits little; B, over its share, is told
// to come back (503 with Retry-After).
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startHarness, type Harness } from '../support/harness';
import { SCOPES } from '../../platform/store/workspaces';
import { makeSiren, party } from '../../bin/stack/sample-parties';
import { b64, png } from '../../bin/stack/sample-images';
import { costliestAccepted } from '../support/costly-pdf';
import { setState, step } from '../support/jobs';
import { inkSigned } from '../support/signed-pdf';

const LINKS = 18;
const ROUNDS = 20;

let h: Harness;
beforeAll(async () => {
  h = await startHarness(); // the configured pool: INSPECT_POOL_SIZE 2, INSPECT_QUEUE 32
});
afterAll(() => h?.close());

interface Registration {
  entryId: string;
  ref: string;
  /** the mandate as issued */
  mandate: Buffer;
}

/** The signing steps of a registration, as a workflow of the key's workspace (as hostile-files.ts `parked`). */
async function signingWorkflow(key: string): Promise<string> {
  const id = crypto.randomUUID();
  const steps = [step('gov-fr.agreement.sign'), setState('processing'), step('gov-fr.agreement.wait.approval')];
  const r = await h.api(
    'PUT',
    `/transform/v1/workflows/${id}`,
    { name: 'signing', schema: 'org/party', steps, rescue: [setState('error')] },
    key,
  );
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return id;
}

/** A registration of the key's workspace, waiting for its signer: its wizard link and its mandate. */
async function waitingForSigner(key: string, workflowId: string): Promise<Registration> {
  const entryId = crypto.randomUUID();
  expect((await h.api('PUT', `/silo/v1/entries/${entryId}`, { data: party(makeSiren()) }, key)).status).toBe(200);
  const job = await h.api('POST', '/transform/v1/jobs', { workflow_id: workflowId, silo_entry_id: entryId }, key);
  expect(job.status, JSON.stringify(job.body)).toBe(202);
  await eventually(
    async () => (await h.api('GET', `/transform/v1/jobs/${job.body.id}`, undefined, key)).body.status === 'WAIT',
    60_000,
    'the registration to wait for its signer',
  );
  const ref = (await h.api('GET', `/silo/v1/entries/${entryId}/meta/approval-link`, undefined, key)).body.ref as string;
  const res = await fetch(`${h.baseUrl}/reg/${ref}/api/agreement`);
  expect(res.status).toBe(200);
  return { entryId, ref, mandate: Buffer.from(await res.arrayBuffer()) };
}

/** A POST of a body encoded once, before the flood (the client runs in the API's process): status, time, Retry-After. */
async function post(path: string, body: string, key: string | null = null) {
  const t = performance.now();
  const r = await h.api('POST', path, body, key); // its answer checked against the OpenAPI document
  return {
    status: r.status,
    ms: performance.now() - t,
    retryAfter: r.headers.get('retry-after'),
    text: JSON.stringify(r.body),
  };
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.ceil((p / 100) * xs.length) - 1]!;

describe('a workspace flooding the file checks', () => {
  it("gets 503 with Retry-After over its share, while another workspace's signer keeps its turn", async () => {
    const started = performance.now();
    const keyB = await h.newKey([...SCOPES]); // a workspace of its own
    const [workflowA, workflowB] = await Promise.all([signingWorkflow(h.apiKey), signingWorkflow(keyB)]);
    const [a, ...flooders] = await Promise.all([
      waitingForSigner(h.apiKey, workflowA),
      ...Array.from({ length: LINKS }, () => waitingForSigner(keyB, workflowB)),
    ]);
    // B's files: each link's own mandate, signed, with as many operations as the limits accept.
    const floods = await Promise.all(
      flooders.map(async (r, i) => {
        const body = JSON.stringify({ data: b64(await costliestAccepted(r.mandate)) });
        // Half through the wizard (the link is the credential), half through the entry API with B's key.
        return i % 2
          ? { path: `/reg/${r.ref}/api/agreement`, body }
          : { path: `/apps/gov-fr/v1/entry/${r.entryId}/agreement`, body, key: keyB };
      }),
    );
    const identity = JSON.stringify({ view: 'front', data: b64(png(64, 64)) });
    const presigned = JSON.stringify({ data: b64(await inkSigned(a.mandate)) });
    const setupS = (performance.now() - started) / 1000;

    // B: two uploads in flight per link, each sent again 250 ms after its answer (Retry-After ignored), until A is done.
    const b = { accepted: 0, busy: 0, busyWithoutRetryAfter: 0, other: [] as string[], retryAfter: new Set<string>() };
    let flooding = true;
    const flood = floods.flatMap((f) =>
      [0, 1].map(async () => {
        while (flooding) {
          const r = await post(f.path, f.body, f.key).catch((e: Error) => ({
            status: 0,
            text: e.message,
            retryAfter: null,
          }));
          if (r.status === 204) b.accepted++;
          else if (r.status === 503) {
            b.busy++;
            if (r.retryAfter && /^\d+$/.test(r.retryAfter)) b.retryAfter.add(r.retryAfter);
            else b.busyWithoutRetryAfter++;
          } else b.other.push(`${r.status} ${r.text.slice(0, 200)}`);
          await new Promise((res) => setTimeout(res, 250));
        }
      }),
    );
    // A starts once B holds its share of the pool and its files are being checked.
    await eventually(async () => b.accepted >= 4 && b.busy > 0, 60_000, "B's flood to fill its share");

    const aTimes: number[] = [];
    const aStatuses: number[] = [];
    const aStarted = performance.now();
    try {
      for (let i = 0; i < ROUNDS; i++) {
        for (const [path, body] of [
          [`/reg/${a.ref}/api/identity`, identity],
          [`/reg/${a.ref}/api/agreement`, presigned],
        ] as const) {
          const r = await post(path, body);
          aStatuses.push(r.status);
          aTimes.push(r.ms);
        }
      }
    } finally {
      flooding = false;
      await Promise.all(flood);
    }
    const aS = (performance.now() - aStarted) / 1000;

    const figures = {
      setupS: +setupS.toFixed(1),
      a: {
        uploads: aTimes.length,
        status503: aStatuses.filter((s) => s === 503).length,
        p50Ms: Math.round(percentile(aTimes, 50)),
        p95Ms: Math.round(percentile(aTimes, 95)),
        maxMs: Math.round(Math.max(...aTimes)),
        tookS: +aS.toFixed(1),
      },
      b: { accepted: b.accepted, status503: b.busy, retryAfterS: [...b.retryAfter].sort() },
      totalS: +((performance.now() - started) / 1000).toFixed(1),
    };
    console.log(`fair file checks: ${JSON.stringify(figures)}`);

    expect(aStatuses.filter((s) => s !== 204)).toEqual([]); // never 503, nor anything else
    expect(figures.a.p95Ms).toBeLessThanOrEqual(2000);
    expect(b.other).toEqual([]);
    expect(b.accepted).toBeGreaterThan(0); // the costliest files are accepted…
    expect(b.busy).toBeGreaterThan(0); // …but B is told to come back beyond its share
    expect(b.busyWithoutRetryAfter).toBe(0);
  }, 180_000);
});
