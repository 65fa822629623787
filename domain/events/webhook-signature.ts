// Standard Webhooks signatures (standardwebhooks.com): `webhook-id`, `webhook-timestamp` and
// `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed by the bytes of a `whsec_` secret.
import crypto from 'node:crypto';

export const newWebhookSecret = () => `whsec_${crypto.randomBytes(24).toString('base64')}`;

/** The encryption context of a subscription's secret at rest. */
export const webhookSecretContext = (subscriptionId: string) => `webhook-secret:${subscriptionId}`;

export function signedHeaders(
  secret: string,
  messageId: string,
  body: string,
  now = new Date(),
): Record<string, string> {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signature = crypto.createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': messageId, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}
