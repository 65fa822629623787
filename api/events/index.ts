// events/v1: webhook subscriptions of the caller's workspace (scope webhooks:rw), their delivery log, and the recent
// events (scope events:read). A subscription's secret (Standard Webhooks `whsec_…`) is shown once, at creation, and
// kept encrypted.
import { z } from 'zod';
import type { DataBox } from '../../platform/crypto/data-box';
import type { Db } from '../../platform/store/db';
import {
  EVENT_KINDS,
  decodeEventCursor,
  deliveryLog,
  getSubscription,
  listEvents,
  listSubscriptions,
  subscriptionView,
} from '../../platform/store/events';
import { subscribe, unsubscribe } from '../../domain/events/subscriptions';
import { notFound } from '../../web/http/problem';
import { route } from '../../web/http/route';
import * as Workspace from '../workspace-schemas';
import { auth } from '../auth';

const subscriptionBody = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2000),
  kinds: z
    .array(z.enum(EVENT_KINDS))
    .min(1, 'at least one event kind')
    .refine((k) => new Set(k).size === k.length, 'kinds must not repeat'),
  description: z.string().trim().min(1).max(200).optional(),
});
const subscriptionParam = z.object({ id: z.uuid({ error: 'must be a UUID' }) });
const pageQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(100, 'at most 100').default(20) });

export const eventsQuery = pageQuery.extend({
  cursor: z
    .string()
    .max(200)
    .refine((c) => decodeEventCursor(c) !== undefined, 'not a cursor from a previous page')
    .optional(),
  entry_id: z.uuid({ error: 'must be a UUID' }).optional(),
  // `kind=a&kind=b` as well as `kind=a,b`.
  kind: z
    .preprocess((v) => (Array.isArray(v) ? v.join(',') : v), z.string().max(200).optional())
    .transform((k) => k?.split(',').map((s) => s.trim()))
    .pipe(
      z
        .array(z.enum(EVENT_KINDS, { error: `one or more of ${EVENT_KINDS.join(', ')}, separated by commas` }))
        .optional(),
    )
    .describe(`one kind, or several separated by commas: ${EVENT_KINDS.join(', ')}`),
});

type Deps = { db: Db; box: DataBox; config: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: boolean } };

const ownSubscription = async (db: Db, workspaceId: string, id: string) => {
  const row = await getSubscription(db, workspaceId, id);
  if (!row) throw notFound(`subscription ${id}`);
  return row;
};

export const eventRoutes = [
  route({
    method: 'post',
    path: '/events/v1/subscriptions',
    operationId: 'subscribe',
    summary: 'Subscribe a URL to event kinds (the signing secret is shown once)',
    description:
      "Sends the workspace's events of the kinds given to a URL (Standard Webhooks signatures, retried with backoff). The signing secret is in this answer only.",
    scope: 'webhooks:rw',
    body: subscriptionBody,
    responses: { 201: Workspace.createdSubscription },
    examples: {
      'party states and job ends': {
        url: 'https://erp.example.com/hooks/pa',
        kinds: ['party.state_changed', 'job.completed'],
      },
    },
    handle: ({ body, res }, { db, box, config }: Deps) =>
      subscribe({ db, box, allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS }, auth(res).workspaceId, body),
  }),
  route({
    method: 'get',
    path: '/events/v1/subscriptions',
    operationId: 'listSubscriptions',
    summary: "The workspace's webhook subscriptions",
    description: "The workspace's webhook subscriptions.",
    scope: 'webhooks:rw',
    responses: { 200: Workspace.subscriptionList },
    handle: async ({ res }, { db }: Deps) => ({
      list: (await listSubscriptions(db, auth(res).workspaceId)).map(subscriptionView),
    }),
  }),
  route({
    method: 'get',
    path: '/events/v1/subscriptions/:id',
    operationId: 'getSubscription',
    summary: 'A webhook subscription',
    description: 'A webhook subscription.',
    scope: 'webhooks:rw',
    params: subscriptionParam,
    responses: { 200: Workspace.subscription },
    handle: async ({ params, res }, { db }: Deps) =>
      subscriptionView(await ownSubscription(db, auth(res).workspaceId, params.id)),
  }),
  route({
    method: 'delete',
    path: '/events/v1/subscriptions/:id',
    operationId: 'unsubscribe',
    summary: 'Disable a webhook subscription',
    description: 'Disables a subscription: no more deliveries.',
    scope: 'webhooks:rw',
    params: subscriptionParam,
    responses: { 204: null },
    handle: ({ params, res }, { db }: Deps) => unsubscribe(db, auth(res).workspaceId, params.id),
  }),
  route({
    method: 'get',
    path: '/events/v1/subscriptions/:id/deliveries',
    operationId: 'listDeliveries',
    summary: 'Delivery log: each delivery and its attempts',
    description: 'Each delivery to the subscription, with its attempts (status code, error, duration).',
    scope: 'webhooks:rw',
    params: subscriptionParam,
    query: pageQuery,
    responses: { 200: Workspace.deliveryList },
    handle: async ({ params, query, res }, { db }: Deps) => {
      await ownSubscription(db, auth(res).workspaceId, params.id);
      return { list: await deliveryLog(db, params.id, query.limit) };
    },
  }),
  route({
    method: 'get',
    path: '/events/v1/events',
    operationId: 'listEvents',
    summary: 'Events of the workspace, newest first (by entry, by kind)',
    description:
      "The workspace's events, newest first in the order they happened: `party.state_changed`, `party.updated`, `job.completed`, `party.drift_found` (the nightly reconciliation found the party's line or participant changed by others), and a campaign's `campaign.checked` (its dry run done), `campaign.progressed` (every few minutes while it runs: counts by verdict and by party state) and `campaign.finished`. Filter by `entry_id` and `kind` (several, comma-separated); `next_cursor` gives the next page.",
    scope: 'events:read',
    query: eventsQuery,
    responses: { 200: Workspace.eventList },
    handle: async ({ query: q, res }, { db }: Deps) => {
      const page = await listEvents(db, auth(res).workspaceId, {
        limit: q.limit,
        cursor: q.cursor,
        entryId: q.entry_id,
        kinds: q.kind,
      });
      return { limit: q.limit, ...(q.cursor && { cursor: q.cursor }), ...page };
    },
  }),
];
