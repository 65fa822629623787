// One webhook delivery: the attempt is an activity retried with exponential backoff for up to 13 hours (the
// subscriber may be down for a night); after that the delivery is marked failed. Deterministic, ids only.
import { ActivityFailure, proxyActivities, setWorkflowOptions } from '@temporalio/workflow';
import { DELIVERY_RETRY_WINDOW, type DeliveryInput, type WebhookActivities } from '../contract/webhook-delivery';

export async function deliverWebhook(input: DeliveryInput): Promise<'delivered' | 'failed'> {
  const { webhookAttempt } = proxyActivities<WebhookActivities>({
    startToCloseTimeout: '30s',
    scheduleToCloseTimeout: DELIVERY_RETRY_WINDOW,
    // No attempt limit: the schedule-to-close window bounds the retries.
    retry: { initialInterval: input.initialInterval ?? '10s', backoffCoefficient: 2, maximumInterval: '1 hour' },
  });
  const { webhookGiveUp } = proxyActivities<WebhookActivities>({
    startToCloseTimeout: '30s',
    retry: { maximumInterval: '1 minute' },
  });
  try {
    await webhookAttempt(input.deliveryId);
    return 'delivered';
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    await webhookGiveUp(input.deliveryId, err.cause?.message ?? err.message);
    return 'failed';
  }
}

// Its retries last up to 13 hours: it moves to the current build on its next task, so that a deploy replacing every
// worker at once strands no delivery (a change must replay the recorded delivery history, as the jobs').
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, deliverWebhook);
