// Over 300 lines on purpose (why): events, subscriptions and deliveries share the outbox's statements.
// Events and webhook deliveries. An event is written in the transaction of the change it reports, with one
// delivery per matching subscription (an outbox): nothing is announced that did not happen, nothing that happened
// goes unannounced. The deliveries are then sent by Temporal workflows (workflows/webhook-delivery.ts).
import crypto from 'node:crypto';
import type { Queryable } from './db';
import { iso } from './rows';

export const EVENT_KINDS = [
  'party.state_changed',
  'party.updated',
  'job.completed',
  'party.drift_found',
  'campaign.checked',
  'campaign.progressed',
  'campaign.finished',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/**
 * SQL for the CTEs `<name>` and `<name>_deliveries`: an event for the entry row of `source` (columns `id`,
 * `workspace_id`) and one delivery per matching subscription. Parameters from `$first`: event id, kind, job id, and
 * the payload unless `payload` gives it as an expression over `source`. Part of the caller's statement, so the
 * change, its event and its deliveries are one round trip, atomic on their own; `name` tells two events apart.
 */
export function eventCtes(source: string, first: number, payload = `$${first + 3}::jsonb`, name = 'event'): string {
  const [id, kind, job] = [first, first + 1, first + 2].map((n) => `$${n}`);
  return `${name} AS (
       INSERT INTO events (id, workspace_id, kind, entry_id, job_id, payload)
       SELECT ${id}::uuid, workspace_id, ${kind}, id, ${job}::uuid, ${payload} FROM ${source}
       RETURNING id, workspace_id, kind
     ), ${name}_deliveries AS (
       INSERT INTO webhook_deliveries (id, subscription_id, event_id)
       SELECT gen_random_uuid(), s.id, e.id FROM ${name} e JOIN webhook_subscriptions s
         ON s.workspace_id = e.workspace_id AND s.disabled_at IS NULL AND e.kind = ANY (s.kinds)
     )`;
}

export type EventInput = { kind: EventKind; entryId: string; jobId?: string; data: Record<string, unknown> };

/** The parameters of eventCtes for `e`. */
export function eventParams(e: EventInput): unknown[] {
  return [
    crypto.randomUUID(),
    e.kind,
    e.jobId ?? null,
    JSON.stringify({ entry_id: e.entryId, ...(e.jobId && { job_id: e.jobId }), ...e.data }),
  ];
}

export interface SubscriptionRow {
  id: string;
  workspace_id: string;
  url: string;
  kinds: string[];
  description: string | null;
  secret_sealed: Uint8Array;
  created_at: Date;
  disabled_at: Date | null;
}

export const subscriptionView = (s: SubscriptionRow) => ({
  id: s.id,
  url: s.url,
  kinds: s.kinds,
  ...(s.description && { description: s.description }),
  created_at: iso(s.created_at)!,
  disabled_at: iso(s.disabled_at) ?? null,
});

export async function insertSubscription(
  q: Queryable,
  s: { id: string; workspaceId: string; url: string; kinds: string[]; description?: string; secretSealed: Uint8Array },
) {
  const { rows } = await q.query<SubscriptionRow>(
    `INSERT INTO webhook_subscriptions (id, workspace_id, url, kinds, description, secret_sealed) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
    [s.id, s.workspaceId, s.url, s.kinds, s.description ?? null, s.secretSealed],
  );
  return rows[0]!;
}

export async function listSubscriptions(q: Queryable, workspaceId: string) {
  const { rows } = await q.query<SubscriptionRow>(
    'SELECT * FROM webhook_subscriptions WHERE workspace_id = $1 ORDER BY created_at DESC, id',
    [workspaceId],
  );
  return rows;
}

export async function getSubscription(q: Queryable, workspaceId: string, id: string) {
  const { rows } = await q.query<SubscriptionRow>(
    'SELECT * FROM webhook_subscriptions WHERE id = $1 AND workspace_id = $2',
    [id, workspaceId],
  );
  return rows[0];
}

/** Marks a workspace's subscription disabled (kept as history); false when the workspace has no such subscription. */
export async function markSubscriptionDisabled(q: Queryable, workspaceId: string, id: string): Promise<boolean> {
  const r = await q.query(
    'UPDATE webhook_subscriptions SET disabled_at = COALESCE(disabled_at, now()) WHERE id = $1 AND workspace_id = $2',
    [id, workspaceId],
  );
  return r.rowCount > 0;
}

/** Cancels a subscription's deliveries not yet made. */
export async function cancelPendingDeliveries(q: Queryable, subscriptionId: string): Promise<void> {
  await q.query(
    `UPDATE webhook_deliveries SET status = 'cancelled', updated_at = now() WHERE subscription_id = $1 AND status = 'pending'`,
    [subscriptionId],
  );
}

/** A subscription's deliveries, newest first, each with its attempts. */
export async function deliveryLog(q: Queryable, subscriptionId: string, limit: number) {
  const { rows } = await q.query<{
    id: string;
    event_id: string;
    kind: string;
    status: string;
    attempts: number;
    last_status_code: number | null;
    last_error: string | null;
    created_at: Date;
    delivered_at: Date | null;
  }>(
    `SELECT d.id, d.event_id, e.kind, d.status, d.attempts, d.last_status_code, d.last_error, d.created_at, d.delivered_at
       FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
      WHERE d.subscription_id = $1 ORDER BY d.created_at DESC, d.id LIMIT $2`,
    [subscriptionId, limit],
  );
  const attempts = await q.query<{
    delivery_id: string;
    attempt: number;
    at: Date;
    status_code: number | null;
    error: string | null;
    duration_ms: number;
  }>('SELECT * FROM webhook_attempts WHERE delivery_id = ANY($1::uuid[]) ORDER BY attempt', [rows.map((r) => r.id)]);
  return rows.map((r) => ({
    id: r.id,
    event_id: r.event_id,
    kind: r.kind,
    status: r.status,
    attempts: attempts.rows
      .filter((a) => a.delivery_id === r.id)
      .map((a) => ({
        attempt: a.attempt,
        at: iso(a.at)!,
        ...(a.status_code != null && { status_code: a.status_code }),
        ...(a.error && { error: a.error }),
        duration_ms: a.duration_ms,
      })),
    created_at: iso(r.created_at)!,
    delivered_at: iso(r.delivered_at) ?? null,
  }));
}

/** Deliveries whose workflow has not been started yet (the dispatcher starts them). */
export async function unstartedDeliveries(q: Queryable, limit = 100): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(
    `SELECT id FROM webhook_deliveries WHERE started_at IS NULL AND status = 'pending' ORDER BY created_at LIMIT $1`,
    [limit],
  );
  return rows.map((r) => r.id);
}

export async function markDeliveryStarted(q: Queryable, id: string): Promise<void> {
  await q.query('UPDATE webhook_deliveries SET started_at = COALESCE(started_at, now()) WHERE id = $1', [id]);
}

/** What a delivery attempt needs: the event, the subscription's URL and sealed secret. */
export async function deliveryWork(q: Queryable, id: string) {
  const { rows } = await q.query<{
    status: string;
    subscription_id: string;
    url: string;
    secret_sealed: Uint8Array;
    event_id: string;
    kind: string;
    payload: Record<string, unknown>;
    at: Date;
  }>(
    `SELECT d.status, d.subscription_id, s.url, s.secret_sealed, e.id AS event_id, e.kind, e.payload, e.at
       FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id JOIN events e ON e.id = d.event_id
      WHERE d.id = $1`,
    [id],
  );
  return rows[0];
}

export async function recordAttempt(
  q: Queryable,
  a: {
    deliveryId: string;
    attempt: number;
    statusCode?: number;
    error?: string;
    durationMs: number;
    delivered: boolean;
  },
): Promise<void> {
  await q.query(
    `INSERT INTO webhook_attempts (delivery_id, attempt, status_code, error, duration_ms) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (delivery_id, attempt) DO NOTHING`,
    [a.deliveryId, a.attempt, a.statusCode ?? null, a.error ?? null, a.durationMs],
  );
  await q.query(
    `UPDATE webhook_deliveries SET attempts = GREATEST(attempts, $2), last_status_code = $3, last_error = $4, updated_at = now(),
       status = CASE WHEN $5 THEN 'delivered' ELSE status END, delivered_at = CASE WHEN $5 THEN now() ELSE delivered_at END
     WHERE id = $1`,
    [a.deliveryId, a.attempt, a.statusCode ?? null, a.error ?? null, a.delivered],
  );
}

export async function markDeliveryFailed(q: Queryable, id: string, error: string): Promise<void> {
  await q.query(
    `UPDATE webhook_deliveries SET status = 'failed', last_error = $2, updated_at = now() WHERE id = $1 AND status = 'pending'`,
    [id, error],
  );
}

/**
 * The events' cursor: the workspace's own number of the last event of a page (platform/store/migrations/
 * …_events-per-workspace.sql), encoded. It tells nothing of other workspaces (their events are numbered apart), and
 * a cursor of the service-wide sequence given before (`s…`) is not taken for one.
 */
export const encodeEventCursor = (wsSeq: string | number): string => Buffer.from(`w${wsSeq}`).toString('base64url');

export function decodeEventCursor(cursor: string): string | undefined {
  return /^w([1-9]\d{0,17})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'))?.[1];
}

export interface EventFilter {
  limit: number;
  cursor?: string;
  entryId?: string;
  kinds?: EventKind[];
}

/**
 * The workspace's events, newest first (in the order they were committed, those of one statement in the order it
 * wrote them), after `cursor` (from a previous page).
 */
export async function listEvents(db: Queryable, workspaceId: string, f: EventFilter) {
  const params: unknown[] = [workspaceId, f.limit + 1];
  const where = ['workspace_id = $1'];
  const add = (sql: (n: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (f.entryId) add((n) => `entry_id = ${n}::uuid`, f.entryId);
  if (f.kinds?.length) add((n) => `kind = ANY (${n}::text[])`, f.kinds);
  const after = f.cursor ? decodeEventCursor(f.cursor) : undefined;
  if (after) add((n) => `ws_seq < ${n}::bigint`, after);
  const { rows } = await db.query<{
    id: string;
    kind: string;
    entry_id: string | null;
    job_id: string | null;
    payload: unknown;
    at: Date;
    ws_seq: string;
  }>(
    // ws_seq is given at commit: only the caller's own transaction could see an event without it yet.
    `SELECT id, kind, entry_id, job_id, payload, at, ws_seq FROM events
      WHERE ${where.join(' AND ')} AND ws_seq IS NOT NULL ORDER BY ws_seq DESC LIMIT $2`,
    params,
  );
  const page = rows.slice(0, f.limit);
  const last = page.at(-1);
  return {
    list: page.map((e) => ({
      id: e.id,
      kind: e.kind,
      entry_id: e.entry_id,
      job_id: e.job_id,
      data: e.payload,
      at: iso(e.at),
    })),
    ...(rows.length > f.limit && last && { next_cursor: encodeEventCursor(last.ws_seq) }),
  };
}

/** A `job.step` event and its delivery to one subscription, each once whatever the retries (ids fixed by the caller). */
export async function queueStepDelivery(
  q: Queryable,
  d: {
    eventId: string;
    deliveryId: string;
    subscriptionId: string;
    workspaceId: string;
    entryId: string;
    jobId: string;
    payload: unknown;
  },
): Promise<void> {
  await q.query(
    `INSERT INTO events (id, workspace_id, kind, entry_id, job_id, payload) VALUES ($1, $2, 'job.step', $3, $4, $5) ON CONFLICT (id) DO NOTHING`,
    [d.eventId, d.workspaceId, d.entryId, d.jobId, JSON.stringify(d.payload)],
  );
  await q.query(
    `INSERT INTO webhook_deliveries (id, subscription_id, event_id) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING`,
    [d.deliveryId, d.subscriptionId, d.eventId],
  );
}

/** A campaign's event (no entry): its dry run done, its progress, its end. */
export async function recordCampaignEvent(
  db: Queryable,
  campaignId: string,
  kind: Extract<EventKind, `campaign.${string}`>,
  data: Record<string, unknown>,
): Promise<void> {
  await db.query(
    `WITH source AS (SELECT NULL::uuid AS id, workspace_id FROM campaigns WHERE id = $5), ${eventCtes('source', 1)}
     SELECT 1`,
    [crypto.randomUUID(), kind, null, JSON.stringify({ campaign_id: campaignId, ...data }), campaignId],
  );
}
