export { runJob } from './run-job';
export { deliverWebhook } from './webhook-delivery';
