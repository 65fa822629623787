// Events and webhooks as a subscriber sees them: every party state change and job end arrives, signed in the
// Standard Webhooks format (verified with the reference `standardwebhooks` library), retried with backoff by a
// durable Temporal workflow until accepted, and logged attempt by attempt in the API.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maybeRecordHistory } from '../../support/record-history';
import { DELIVERY_RETRY_WINDOW } from '../../../contract/webhook-delivery';
import { eventually, startHarness, type Harness } from '../../support/harness';
import { makeSiren, party } from '../../../bin/stack/sample-parties';
import { createWorkflow, jobWhen, setState, startJob, step } from '../../support/jobs';

interface Received {
  headers: Record<string, string>;
  body: string;
  answered: number;
}

let h: Harness;
let receiver: http.Server;
let url: string;
const received: Received[] = [];
/** Each message's first attempts fail with 503 while this is above zero (the subscriber is down). */
let failFirst = 0;
const seen = new Map<string, number>();

beforeAll(async () => {
  h = await startHarness();
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      seen.set(id, (seen.get(id) ?? 0) + 1);
      const answered = seen.get(id)! <= failFirst ? 503 : 200;
      received.push({ headers: req.headers as Record<string, string>, body, answered });
      res.writeHead(answered).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});
afterAll(async () => {
  receiver?.close();
  await h?.close();
});

const accepted = (entryId: string) =>
  received.filter(
    (r) => r.answered === 200 && (JSON.parse(r.body) as { data: { entry_id: string } }).data.entry_id === entryId,
  );

async function subscribe(kinds: string[]) {
  const r = await h.api('POST', '/events/v1/subscriptions', { url, kinds, description: 'ERP' });
  expect(r.status).toBe(201);
  expect(r.body.secret).toMatch(/^whsec_/);
  return r.body as { id: string; secret: string };
}

async function runJobOn(steps: unknown[]) {
  const entryId = crypto.randomUUID();
  await h.api('PUT', `/silo/v1/entries/${entryId}`, { data: party(makeSiren()) });
  const jobId = await startJob(h, await createWorkflow(h, steps), entryId);
  expect((await jobWhen(h, jobId, ['OK', 'ERR'])).status).toBe('OK');
  return { entryId, jobId };
}

describe('webhooks', () => {
  it('sends every state change and the job end, signed, retried until accepted, with a delivery log', async () => {
    const sub = await subscribe(['party.state_changed', 'job.completed']);
    failFirst = 2; // the subscriber is down for each message's first two attempts
    const { entryId, jobId } = await runJobOn([setState('processing'), setState('completed')]);

    const got = await eventually(
      async () => {
        const a = accepted(entryId);
        return a.length >= 3 && a;
      },
      30_000,
      'three accepted deliveries',
    );
    const wh = new Webhook(sub.secret);
    const messages = got.map(
      (r) => wh.verify(r.body, r.headers) as { type: string; timestamp: string; data: Record<string, unknown> },
    );
    expect(messages.map((m) => m.type).sort()).toEqual(['job.completed', 'party.state_changed', 'party.state_changed']);
    expect(
      messages
        .filter((m) => m.type === 'party.state_changed')
        .map((m) => m.data.state)
        .sort(),
    ).toEqual(['completed', 'processing']);
    expect(messages.find((m) => m.type === 'job.completed')!.data).toMatchObject({
      entry_id: entryId,
      job_id: jobId,
      status: 'OK',
      faults: [],
    });
    // A tampered body does not verify: the check is real.
    expect(() => wh.verify(got[0]!.body.replace('"', ' "'), got[0]!.headers)).toThrow();

    const log = (await h.api('GET', `/events/v1/subscriptions/${sub.id}/deliveries`)).body.list;
    expect(log.map((d: { attempts: unknown[] }) => d.attempts.length)).toEqual([3, 3, 3]);
    const retried = log[0];
    expect(retried.status).toBe('delivered');
    expect(retried.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([503, 503, 200]);
    expect(retried.attempts[0].error).toMatch(/HTTP 503/);
    // Each delivery's webhook-id is its event's id, the same on every retry.
    const ids = received.filter((r) => r.headers['webhook-id'] === retried.event_id);
    expect(ids.length).toBe(3);

    // Durable for at least 12 hours: the retry policy the workflow gave its attempts, read from Temporal's history.
    const history = await h.client.workflow.getHandle(`webhook-${retried.id}`).fetchHistory();
    const scheduled = history.events!.find(
      (e) => e.activityTaskScheduledEventAttributes,
    )!.activityTaskScheduledEventAttributes!;
    expect(Number(scheduled.scheduleToCloseTimeout!.seconds)).toBeGreaterThanOrEqual(12 * 3600);
    expect(scheduled.retryPolicy!.backoffCoefficient).toBe(2);
    expect(scheduled.retryPolicy!.maximumAttempts ?? 0).toBe(0);
    expect(DELIVERY_RETRY_WINDOW).toBe('13 hours');
    await maybeRecordHistory(h.client.workflow.getHandle(`webhook-${retried.id}`), 'deliver-webhook.retried');

    failFirst = 0;
    const events = (await h.api('GET', '/events/v1/events?limit=100')).body.list.filter(
      (e: { entry_id: string }) => e.entry_id === entryId,
    );
    expect(events).toHaveLength(3);
  });

  it('sends nothing to a disabled subscription, and nothing of kinds it did not ask for', async () => {
    const onlyJobs = await subscribe(['job.completed']);
    const { entryId } = await runJobOn([setState('processing')]);
    await eventually(async () => accepted(entryId).length >= 1 || undefined, 30_000, 'job.completed delivered');
    const log = (await h.api('GET', `/events/v1/subscriptions/${onlyJobs.id}/deliveries`)).body.list;
    expect(log.filter((d: { kind: string }) => d.kind !== 'job.completed')).toEqual([]);

    expect((await h.api('DELETE', `/events/v1/subscriptions/${onlyJobs.id}`)).status).toBe(204);
    const before = (await h.api('GET', `/events/v1/subscriptions/${onlyJobs.id}/deliveries`)).body.list.length;
    await runJobOn([setState('processing')]);
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await h.api('GET', `/events/v1/subscriptions/${onlyJobs.id}/deliveries`)).body.list.length).toBe(before);
    expect((await h.api('GET', `/events/v1/subscriptions/${onlyJobs.id}`)).body.disabled_at).not.toBeNull();
  });

  it('has a webhook step provider that sends the step to a subscription, signed the same way', async () => {
    const sub = await subscribe(['job.completed']);
    const { entryId, jobId } = await runJobOn([
      setState('processing'),
      step('webhook', { subscription_id: sub.id }, 'Tell the ERP'),
    ]);
    const stepMessage = await eventually(
      async () => received.find((r) => r.body.includes('"job.step"') && r.body.includes(entryId)),
      30_000,
      'the step message',
    );
    const m = new Webhook(sub.secret).verify(stepMessage.body, stepMessage.headers) as {
      type: string;
      data: Record<string, unknown>;
    };
    expect(m).toMatchObject({ type: 'job.step', data: { entry_id: entryId, job_id: jobId, state: 'processing' } });
    const log = (await h.api('GET', `/events/v1/subscriptions/${sub.id}/deliveries`)).body.list;
    expect(log.find((d: { kind: string }) => d.kind === 'job.step').status).toBe('delivered');
  });

  it('stops delivering the moment a subscription is disabled, pending retries included', async () => {
    for (const earlier of (await h.api('GET', '/events/v1/subscriptions')).body.list)
      await h.api('DELETE', `/events/v1/subscriptions/${earlier.id}`);
    const sub = await subscribe(['job.completed']);
    failFirst = 1_000; // the subscriber keeps failing: the delivery stays pending, retried
    const { entryId } = await runJobOn([setState('processing')]);
    await eventually(
      async () => received.some((r) => r.body.includes(entryId)) || undefined,
      30_000,
      'a first attempt',
    );
    expect((await h.api('DELETE', `/events/v1/subscriptions/${sub.id}`)).status).toBe(204);
    await new Promise((r) => setTimeout(r, 300)); // an attempt in flight at that moment may still land
    const hits = received.filter((r) => r.body.includes(entryId)).length;
    await new Promise((r) => setTimeout(r, 1_500)); // several retry periods
    failFirst = 0;
    expect(received.filter((r) => r.body.includes(entryId)).length).toBe(hits);
    const log = (await h.api('GET', `/events/v1/subscriptions/${sub.id}/deliveries`)).body.list;
    expect(log.map((d: { status: string }) => d.status)).toEqual(['cancelled']);
  });

  it('refuses subscription URLs on private networks unless allowed', async () => {
    const { createApp } = await import('../../../api/app');
    const { log } = await import('../../support/harness');
    const { testSealKey } = await import('../../support/seal-key');
    const app = createApp({
      db: h.db,
      log,
      temporal: h.client,
      config: { ...h.config, WEBHOOK_ALLOW_PRIVATE_NETWORKS: false },
      box: h.box,
      sealKey: testSealKey(),
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const post = (target: string) =>
        fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/events/v1/subscriptions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ url: target, kinds: ['job.completed'] }),
        });
      const metadata = await post('http://169.254.169.254/latest/meta-data/');
      expect(metadata.status).toBe(400);
      expect(((await metadata.json()) as { detail: string }).detail).toMatch(/private or local address/);
      expect((await post('http://localhost:5432/')).status).toBe(400);
      expect((await post('https://hooks.example.com/pa')).status).toBe(201);
    } finally {
      server.close();
    }
  });

  it('validates subscriptions, keeps secrets out of listings, and scopes them to the workspace', async () => {
    for (const bad of [
      { url: 'ftp://x.example', kinds: ['job.completed'] },
      { url, kinds: [] },
      { url, kinds: ['party.deleted'] },
      { kinds: ['job.completed'] },
    ]) {
      expect((await h.api('POST', '/events/v1/subscriptions', bad)).status, JSON.stringify(bad)).toBe(400);
    }
    const sub = await subscribe(['job.completed']);
    const list = (await h.api('GET', '/events/v1/subscriptions')).body.list;
    expect(JSON.stringify(list)).not.toContain(sub.secret);
    const other = await h.newKey(['webhooks:rw']);
    expect((await h.api('GET', `/events/v1/subscriptions/${sub.id}/deliveries`, undefined, other)).status).toBe(404);
    expect((await h.api('DELETE', `/events/v1/subscriptions/${sub.id}`, undefined, other)).status).toBe(404);
    expect(
      (await h.api('GET', '/events/v1/subscriptions', undefined, await h.newKey(['entries:rw'], h.workspaceId))).status,
    ).toBe(403);
    // The secret is encrypted at rest.
    const { rows } = await h.db.query<{ secret_sealed: Uint8Array }>(
      'SELECT secret_sealed FROM webhook_subscriptions WHERE id = $1',
      [sub.id],
    );
    expect(Buffer.from(rows[0]!.secret_sealed).includes(Buffer.from(sub.secret.slice(6)))).toBe(false);
  });
});
