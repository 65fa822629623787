// One webhook delivery's workflow (workflows/webhook-delivery.ts) and the activities it calls
// (activities/webhooks.ts): ids only.

/** The activities a delivery calls. */
export interface WebhookActivities {
  /** One POST of the delivery; throws (to be retried) unless the subscriber answers 2xx. */
  webhookAttempt(deliveryId: string): Promise<void>;
  webhookGiveUp(deliveryId: string, reason: string): Promise<void>;
}

export interface DeliveryInput {
  deliveryId: string;
  /** First retry delay; later ones double up to an hour. Tests shorten it. */
  initialInterval?: string;
}

/** How long a delivery keeps being retried: at least the 12 hours integrators are promised. */
export const DELIVERY_RETRY_WINDOW = '13 hours';
