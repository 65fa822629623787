// Starts one delivery workflow per queued webhook delivery (the outbox written with each event). Runs in every API
// process: the workflow id is the delivery's, so two dispatchers starting the same delivery start it once.
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { Logger } from 'pino';
import { runPeriodically } from '../../platform/periodic';
import { markDeliveryStarted, unstartedDeliveries } from '../../platform/store/events';
import type { Db } from '../../platform/store/db';
import type { DeliveryInput } from '../../contract/webhook-delivery';
import { DELIVERY_WORKFLOW_TYPE, type DeliveryWorkflow } from '../../contract/workflow-types';

export interface DispatchDeps {
  db: Db;
  temporal: Client;
  log: Logger;
  config: { TEMPORAL_TASK_QUEUE: string; WEBHOOK_RETRY_INITIAL: string };
}

export async function dispatchDeliveries(deps: DispatchDeps): Promise<number> {
  let started = 0;
  for (const deliveryId of await unstartedDeliveries(deps.db)) {
    const args: [DeliveryInput] = [{ deliveryId, initialInterval: deps.config.WEBHOOK_RETRY_INITIAL }];
    try {
      await deps.temporal.workflow.start<DeliveryWorkflow>(DELIVERY_WORKFLOW_TYPE, {
        workflowId: `webhook-${deliveryId}`,
        taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
        args,
        // A delivery runs once, whichever API process starts it, even after its first run has closed.
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      });
      started++;
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) {
        deps.log.warn({ err, deliveryId }, 'could not start a webhook delivery; next sweep retries');
        continue; // the others still go
      }
    }
    await markDeliveryStarted(deps.db, deliveryId);
  }
  return started;
}

/** Dispatches every `everyMs`; returns a stop function. */
export function runWebhookDispatcher(deps: DispatchDeps, everyMs = 1_000): () => void {
  return runPeriodically(
    everyMs,
    async () => {
      const n = await dispatchDeliveries(deps);
      if (n) deps.log.debug({ started: n }, 'webhook deliveries started');
    },
    (err) => deps.log.warn({ err }, 'webhook dispatch failed; retrying'),
  );
}
