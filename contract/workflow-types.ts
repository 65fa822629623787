// The workflow types the worker runs (workflows/index.ts), as the API starts them: by name, with their input.
import type { DefinitionJobInput, JobInput, JobResult } from './job';
import type { DeliveryInput } from './webhook-delivery';

/** A built-in job's workflow: its definition is in the code (contract/definitions.ts). */
export type BuiltinJobWorkflow = (job: JobInput) => Promise<JobResult>;
/** A workspace's own definition, interpreted as it was when the job started. */
export type DefinitionJobWorkflow = (job: DefinitionJobInput) => Promise<JobResult>;
export type DeliveryWorkflow = (input: DeliveryInput) => Promise<'delivered' | 'failed'>;

export const JOB_WORKFLOW_TYPES = ['registration', 'unregistration', 'runDefinition'] as const;
export type JobWorkflowType = (typeof JOB_WORKFLOW_TYPES)[number];
export const DELIVERY_WORKFLOW_TYPE = 'deliverWebhook';
