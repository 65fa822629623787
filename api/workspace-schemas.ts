// The shapes of a workspace's own resources in JSON responses: API keys, webhook subscriptions and deliveries,
// events, a party's stored credentials.
import { z } from 'zod';
import { timestamp, uuid } from '../web/http/schema-primitives';

export const apiKey = z
  .object({
    id: uuid,
    name: z.string(),
    prefix: z.string(),
    scopes: z.array(z.string()),
    created_at: timestamp,
    revoked_at: timestamp.nullable(),
  })
  .meta({ id: 'ApiKey' });
export const apiKeyList = z.object({ list: z.array(apiKey) }).meta({ id: 'ApiKeyList' });
export const createdApiKey = apiKey
  .extend({ api_key: z.string().describe('the secret: shown this once') })
  .meta({ id: 'CreatedApiKey' });

export const subscription = z
  .object({
    id: uuid,
    url: z.string(),
    kinds: z.array(z.string()),
    description: z.string().optional(),
    created_at: timestamp,
    disabled_at: timestamp.nullable(),
  })
  .meta({ id: 'WebhookSubscription' });
export const createdSubscription = subscription
  .extend({ secret: z.string().describe('whsec_…: shown this once') })
  .meta({ id: 'CreatedWebhookSubscription' });
export const subscriptionList = z.object({ list: z.array(subscription) }).meta({ id: 'WebhookSubscriptionList' });
export const deliveryList = z
  .object({
    list: z.array(
      z.object({
        id: uuid,
        event_id: uuid,
        kind: z.string(),
        status: z.enum(['pending', 'delivered', 'failed', 'cancelled']),
        attempts: z.array(
          z.object({
            attempt: z.number().int(),
            at: timestamp,
            status_code: z.number().int().optional(),
            error: z.string().optional(),
            duration_ms: z.number().int(),
          }),
        ),
        created_at: timestamp,
        delivered_at: timestamp.nullable(),
      }),
    ),
  })
  .meta({ id: 'WebhookDeliveryLog' });
export const eventList = z
  .object({
    limit: z.number().int(),
    cursor: z.string().optional(),
    list: z.array(
      z.object({
        id: uuid,
        kind: z.string(),
        entry_id: uuid.nullable(),
        job_id: uuid.nullable(),
        data: z.record(z.string(), z.unknown()),
        at: timestamp,
      }),
    ),
    next_cursor: z.string().optional().describe('the next page: pass it as cursor; absent on the last page'),
  })
  .meta({ id: 'EventList' });

export const credential = z
  .object({
    name: z.string(),
    kind: z.enum(['oauth-token', 'api-key']),
    details: z.record(z.string(), z.unknown()),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Credential', description: 'a stored credential: its secret is never returned' });
export const credentialList = z.object({ list: z.array(credential) }).meta({ id: 'CredentialList' });
