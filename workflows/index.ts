// Every workflow type the worker runs.
export { registration } from './registration';
export { unregistration } from './unregistration';
export { runDefinition } from './run-definition';
export { deliverWebhook } from './webhook-delivery';
export { runJob } from './legacy/run-job';
