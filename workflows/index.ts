// Every workflow type the worker runs.
import type {
  BuiltinJobWorkflow,
  DefinitionJobWorkflow,
  DeliveryWorkflow,
  JobWorkflowType,
} from '../contract/workflow-types';
import { reconcile } from './reconciliation';
import { sweepJobs } from './job-sweep';
import { checkCampaign } from './campaign-check';
import { runCampaign } from './campaign-run';
import { registration } from './registration';
import { runDefinition } from './run-definition';
import { unregistration } from './unregistration';
import { deliverWebhook } from './webhook-delivery';

export {
  registration,
  unregistration,
  runDefinition,
  deliverWebhook,
  reconcile,
  sweepJobs,
  checkCampaign,
  runCampaign,
};

// The API starts them by name with the contract's types (contract/workflow-types.ts): they must agree.
({ registration, unregistration, runDefinition }) satisfies Record<
  JobWorkflowType,
  BuiltinJobWorkflow | DefinitionJobWorkflow
>;
deliverWebhook satisfies DeliveryWorkflow;
