// A webhook subscription: its URL must reach a public address (unless the platform allows private networks, in
// development), and its secret (Standard Webhooks `whsec_…`) is made here, kept sealed, and shown once to its creator.
import crypto from 'node:crypto';
import type { DataBox } from '../../platform/crypto/data-box';
import type { Db } from '../../platform/store/db';
import {
  cancelPendingDeliveries,
  insertSubscription,
  markSubscriptionDisabled,
  subscriptionView,
  type EventKind,
} from '../../platform/store/events';
import { DomainError } from '../errors';
import { refusedWebhookUrl } from './url-guard';
import { newWebhookSecret, webhookSecretContext } from './webhook-signature';

export interface NewSubscription {
  url: string;
  kinds: EventKind[];
  description?: string;
}

export async function subscribe(
  deps: { db: Db; box: DataBox; allowPrivateNetworks: boolean },
  workspaceId: string,
  input: NewSubscription,
): Promise<ReturnType<typeof subscriptionView> & { secret: string }> {
  const refused = deps.allowPrivateNetworks ? undefined : refusedWebhookUrl(input.url);
  if (refused)
    throw new DomainError('invalid-request', `invalid body: url: ${refused}`, {
      field: { path: 'body.url', message: refused },
    });
  const id = crypto.randomUUID();
  const secret = newWebhookSecret();
  const row = await insertSubscription(deps.db, {
    id,
    workspaceId,
    url: input.url,
    kinds: input.kinds,
    description: input.description,
    secretSealed: deps.box.seal(Buffer.from(secret), webhookSecretContext(id)),
  });
  return { ...subscriptionView(row), secret };
}

/**
 * A subscription disabled, kept as history: nothing more is sent to its URL, and its deliveries not yet made are
 * cancelled with it (one transaction). Disabling it again changes nothing.
 */
export async function unsubscribe(db: Db, workspaceId: string, id: string): Promise<void> {
  await db.tx(async (q) => {
    if (!(await markSubscriptionDisabled(q, workspaceId, id)))
      throw new DomainError('not-found', `subscription ${id} not found`);
    await cancelPendingDeliveries(q, id);
  });
}
