// Webhook deliveries (Standard Webhooks format): one HTTP attempt per activity attempt, recorded in the delivery
// log; the workflow retries. Also the `webhook` step provider, which sends a definition's step to a subscription.
import crypto from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { dataBoxFromConfig, type DataBox } from '../platform/crypto/data-box';
import {
  deliveryWork,
  getSubscription,
  markDeliveryFailed,
  queueStepDelivery,
  recordAttempt,
} from '../platform/store/events';
import { getEntryRow } from '../platform/store/entries';
import { signedHeaders, webhookSecretContext } from '../domain/events/webhook-signature';
import type { Clients } from '../integrations/clients';
import { fetch } from 'undici';
import type { StepResult } from '../contract/activities';
import type { StepInput } from '../contract/journal';
import type { WebhookActivities } from '../contract/webhook-delivery';
import type { ActivityDeps } from './deps';
import type { Commit } from '../domain/jobs/step-commit';

const TIMEOUT_MS = 10_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function webhookActivities({ db, log, config }: ActivityDeps, dispatcher: Clients['webhooks']) {
  let box: DataBox | undefined;
  const secretOf = (subscriptionId: string, sealed: Uint8Array) =>
    (box ??= dataBoxFromConfig(config)).open(sealed, webhookSecretContext(subscriptionId)).toString('utf8');

  /** One POST of the delivery; throws (to be retried) unless the subscriber answers 2xx. */
  async function webhookAttempt(deliveryId: string): Promise<void> {
    const work = await deliveryWork(db, deliveryId);
    if (!work) throw ApplicationFailure.nonRetryable(`delivery ${deliveryId} does not exist`, 'delivery-unknown');
    if (work.status !== 'pending') return; // delivered already (a lost acknowledgement), or cancelled with its subscription
    const attempt = Context.current().info.attempt;
    const body = JSON.stringify({ type: work.kind, timestamp: work.at.toISOString(), data: work.payload });
    const headers = signedHeaders(secretOf(work.subscription_id, work.secret_sealed), work.event_id, body);
    const started = Date.now();
    let statusCode: number | undefined;
    let error: string | undefined;
    try {
      const res = await fetch(work.url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'pa-party-registration-webhooks' },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_MS),
        ...(dispatcher && { dispatcher }),
      });
      statusCode = res.status;
      await res.body?.cancel();
      if (res.status < 200 || res.status >= 300) error = `the subscriber answered HTTP ${res.status}`;
    } catch (err) {
      const cause = (err as { cause?: Error }).cause?.message;
      error =
        (err as Error).name === 'TimeoutError'
          ? `no answer within ${TIMEOUT_MS / 1000} s`
          : `cannot reach the subscriber: ${cause ?? (err as Error).message}`;
    }
    await recordAttempt(db, {
      deliveryId,
      attempt,
      statusCode,
      error,
      durationMs: Date.now() - started,
      delivered: !error,
    });
    if (error) {
      log.warn({ deliveryId, attempt, statusCode }, 'webhook attempt failed');
      throw ApplicationFailure.retryable(error, 'webhook-attempt-failed');
    }
    log.info({ deliveryId, attempt, statusCode }, 'webhook delivered');
  }

  async function webhookGiveUp(deliveryId: string, reason: string): Promise<void> {
    await markDeliveryFailed(db, deliveryId, `gave up: ${reason}`);
    log.warn({ deliveryId }, 'webhook delivery abandoned after its retry window');
  }

  /**
   * The `webhook` step: queues the job's step, as an event of kind `job.step`, for the subscription named by
   * `config.subscription_id` (its URL and secret; secrets never travel in definitions), delivered durably like
   * every event. Idempotent per step.
   */
  async function webhookStep(
    input: StepInput,
    commit: Commit = (write) => db.tx(write),
  ): Promise<StepResult & { deliveryId: string }> {
    const subscriptionId = input.config.subscription_id;
    if (typeof subscriptionId !== 'string' || !UUID.test(subscriptionId)) {
      throw ApplicationFailure.nonRetryable(
        'the webhook step needs config.subscription_id, a subscription id',
        'invalid-config',
      );
    }
    const sub = await getSubscription(db, input.workspaceId, subscriptionId);
    if (!sub || sub.disabled_at)
      throw ApplicationFailure.nonRetryable(
        `webhook subscription ${subscriptionId} does not exist or is disabled`,
        'invalid-config',
      );
    const entry = await getEntryRow(db, input.workspaceId, input.entryId);
    // One event and one delivery per (job, step): a retried step sends the same message again, never a new one.
    const key = crypto.createHash('sha256').update(`${input.jobId}/${input.stepId}`).digest('hex');
    const eventId = `${key.slice(0, 8)}-${key.slice(8, 12)}-4${key.slice(13, 16)}-8${key.slice(17, 20)}-${key.slice(20, 32)}`;
    const deliveryId = `${key.slice(32, 40)}-${key.slice(40, 44)}-4${key.slice(45, 48)}-8${key.slice(49, 52)}-${key.slice(52, 64)}`;
    const payload = {
      entry_id: input.entryId,
      job_id: input.jobId,
      step_id: input.stepId,
      state: entry?.state ?? null,
      faults: input.faults ?? [],
    };
    await commit((q) =>
      queueStepDelivery(q, {
        eventId,
        deliveryId,
        subscriptionId,
        workspaceId: input.workspaceId,
        entryId: input.entryId,
        jobId: input.jobId,
        payload,
      }),
    );
    // Queued like every delivery: the dispatcher starts its workflow, which retries it for 13 hours.
    return { deliveryId };
  }

  const delivery: WebhookActivities = { webhookAttempt, webhookGiveUp };
  return { ...delivery, webhook: webhookStep };
}
