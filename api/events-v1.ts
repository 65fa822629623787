// events/v1: webhook subscriptions of the caller's workspace (scope admin), their delivery log, and the recent
// events. A subscription's secret (Standard Webhooks `whsec_…`) is shown once, at creation, and kept encrypted.
import { Router } from 'express';
import { z } from 'zod';
import type { DataBox } from '../platform/crypto/data-box';
import type { Db } from '../platform/store/db';
import {
  EVENT_KINDS,
  decodeEventCursor,
  deliveryLog,
  disableSubscription,
  getSubscription,
  listEvents,
  listSubscriptions,
  subscriptionView,
} from '../platform/store/events';
import { auth, requireScope } from './auth';
import { notFound } from '../web/http/problem';
import { subscribe } from '../domain/events/subscriptions';
import { body, params, query } from '../web/http/validate';

export const subscriptionBody = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2000),
  kinds: z
    .array(z.enum(EVENT_KINDS))
    .min(1, 'at least one event kind')
    .refine((k) => new Set(k).size === k.length, 'kinds must not repeat'),
  description: z.string().trim().min(1).max(200).optional(),
});
export const subscriptionParam = z.object({ id: z.uuid({ error: 'must be a UUID' }) });
export const pageQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(100, 'at most 100').default(20) });

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

export function eventsRouter(deps: {
  db: Db;
  box: DataBox;
  config: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: boolean };
}): Router {
  const { db, box } = deps;
  const r = Router();
  r.use(requireScope('admin'));

  r.post('/subscriptions', async (req, res) => {
    const subscriber = { db, box, allowPrivateNetworks: deps.config.WEBHOOK_ALLOW_PRIVATE_NETWORKS };
    res.status(201).json(await subscribe(subscriber, auth(res).workspaceId, body(req, subscriptionBody)));
  });

  r.get('/subscriptions', async (_req, res) => {
    res.json({ list: (await listSubscriptions(db, auth(res).workspaceId)).map(subscriptionView) });
  });

  r.get('/subscriptions/:id', async (req, res) => {
    const { id } = params(req, subscriptionParam);
    const row = await getSubscription(db, auth(res).workspaceId, id);
    if (!row) throw notFound(`subscription ${id}`);
    res.json(subscriptionView(row));
  });

  r.delete('/subscriptions/:id', async (req, res) => {
    const { id } = params(req, subscriptionParam);
    if (!(await disableSubscription(db, auth(res).workspaceId, id))) throw notFound(`subscription ${id}`);
    res.status(204).end();
  });

  r.get('/subscriptions/:id/deliveries', async (req, res) => {
    const { id } = params(req, subscriptionParam);
    const { limit } = query(req, pageQuery);
    if (!(await getSubscription(db, auth(res).workspaceId, id))) throw notFound(`subscription ${id}`);
    res.json({ list: await deliveryLog(db, id, limit) });
  });

  r.get('/events', async (req, res) => {
    const q = query(req, eventsQuery);
    const page = await listEvents(db, auth(res).workspaceId, {
      limit: q.limit,
      cursor: q.cursor,
      entryId: q.entry_id,
      kinds: q.kind,
    });
    res.json({ limit: q.limit, ...(q.cursor && { cursor: q.cursor }), ...page });
  });

  return r;
}
