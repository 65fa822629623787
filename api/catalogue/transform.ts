// transform/v1: workflow definitions and the jobs that run them.
import * as R from '../schemas';
import { idParam, keyParam } from '../entries-v1';
import { cancelJobBody, createJobQuery, jobBody, listJobsQuery, listWorkflowsQuery } from '../jobs-v1';
import { workflowInput } from '../../domain/jobs/definition-schema';
import { UNREGISTRATION_WORKFLOW_ID } from '../../domain/jobs/builtins';
import { REGISTRATION, STORED } from './common';
import type { Operation, OperationDoc } from './operation';

export const operations: Operation[] = [
  {
    method: 'put',
    path: '/transform/v1/workflows/:id',
    summary: 'Create a workflow definition',
    scope: 'jobs:rw',
    params: idParam,
    body: workflowInput,
    responses: { 200: R.workflow, 201: R.workflow },
  },
  {
    method: 'get',
    path: '/transform/v1/workflows',
    summary: 'List workflow definitions (built-ins included)',
    scope: 'jobs:rw',
    query: listWorkflowsQuery,
    responses: { 200: R.workflowList },
  },
  {
    method: 'get',
    path: '/transform/v1/workflows/:id',
    summary: 'Fetch a workflow definition',
    scope: 'jobs:rw',
    params: idParam,
    responses: { 200: R.workflow },
  },
  {
    method: 'post',
    path: '/transform/v1/jobs',
    summary: 'Run a workflow on an entry',
    scope: 'jobs:rw',
    query: createJobQuery,
    body: jobBody,
    responses: { 202: R.job },
  },
  {
    method: 'put',
    path: '/transform/v1/jobs/:id',
    summary: 'Run a workflow on an entry, with a client-chosen job id',
    scope: 'jobs:rw',
    params: idParam,
    query: createJobQuery,
    body: jobBody,
    responses: { 202: R.job },
  },
  {
    method: 'get',
    path: '/transform/v1/jobs',
    summary: 'List jobs, newest first (by entry, status, workflow)',
    scope: 'jobs:rw',
    query: listJobsQuery,
    responses: { 200: R.jobPage },
  },
  {
    method: 'post',
    path: '/transform/v1/jobs/:id/cancel',
    summary: 'Cancel a job, until a step acting outside (directory, Peppol) has started',
    scope: 'jobs:rw',
    params: idParam,
    body: cancelJobBody,
    responses: { 200: R.job },
  },
  {
    method: 'get',
    path: '/transform/v1/jobs/key/:key',
    summary: 'Fetch a job by its key',
    scope: 'jobs:rw',
    params: keyParam,
    responses: { 200: R.job },
  },
  {
    method: 'get',
    path: '/transform/v1/jobs/:id',
    summary: 'Fetch a job, its steps and faults',
    scope: 'jobs:rw',
    params: idParam,
    responses: { 200: R.job },
  },
];

export const docs: Record<string, OperationDoc> = {
  'put /transform/v1/workflows/:id': {
    description:
      'Stores a workflow definition of the workspace: its steps (each a `provider`, also named `action`) and its rescue steps, run when a step fails. The built-in registration and unregistration are listed by GET. ' +
      `The definition as stored (its steps and rescue, \`notes\` left out) holds at most ${STORED.values} JSON values and keys and ${STORED.bytes} bytes as compact JSON: a larger one is refused, 400 naming the limit.`,
    examples: {
      'set a state': {
        name: 'Mark completed',
        schema: 'org/party',
        steps: [
          {
            id: 'b1f0c7de-8a3e-4c1e-9d5a-2f6b7c8d9e01',
            name: 'Set state',
            provider: 'silo.state',
            config: { state: 'completed' },
          },
        ],
        rescue: [
          {
            id: 'b1f0c7de-8a3e-4c1e-9d5a-2f6b7c8d9e02',
            name: 'Set state',
            provider: 'silo.state',
            config: { state: 'error' },
          },
        ],
      },
    },
    errors: ['builtin-workflow', 'id-taken', 'id-not-available'],
  },
  'get /transform/v1/workflows': {
    description:
      "The workspace's workflow definitions, and the built-in ones: the French party registration and unregistration.",
  },
  'get /transform/v1/workflows/:id': { description: 'A workflow definition, with its steps.' },
  'post /transform/v1/jobs': {
    description:
      'Runs a workflow on an entry. The built-in registration issues the mandate, publishes the wizard link (`approval-link` meta) and waits for the signer and the operator; then it registers the party in the PPF Annuaire and on Peppol. ' +
      'The answer is 202 with the job as accepted; follow it with `GET /transform/v1/jobs/{id}`, the entry, or webhooks. With `?wait=N` (at most 60) it answers once the job ends or waits, or after N seconds. ' +
      'An entry runs one job at a time, and a SIREN is registered once per workspace. ' +
      'An unregistration takes `args.leave_on` (YYYY-MM-DD, today to a year ahead): the company leaves us for another platform that day; the job waits for it, our records in place, and can be cancelled meanwhile. ' +
      `\`args\` hold at most ${STORED.values} JSON values and keys and ${STORED.bytes} bytes as compact JSON (400 naming the limit).`,
    examples: {
      'register an entry': {
        workflow_id: REGISTRATION,
        silo_entry_id: '0b8e0c4e-7f57-4ad5-9d8f-3f3c1b1f5a10',
        key: 'register-552032534',
      },
      'leave for another platform on a day': {
        workflow_id: UNREGISTRATION_WORKFLOW_ID,
        silo_entry_id: '0b8e0c4e-7f57-4ad5-9d8f-3f3c1b1f5a10',
        args: { leave_on: '2027-01-04' },
      },
    },
    errors: [
      'not-found',
      'wrong-schema',
      'invalid-data',
      'job-running',
      'registration-running',
      'siren-registered',
      'not-registered',
      'key-taken',
      'id-not-available',
    ],
  },
  'put /transform/v1/jobs/:id': {
    description: 'As `POST /transform/v1/jobs`, with the job id chosen by the client: a retry cannot start two jobs.',
    examples: {
      'register an entry': { workflow_id: REGISTRATION, silo_entry_id: '0b8e0c4e-7f57-4ad5-9d8f-3f3c1b1f5a10' },
    },
    errors: [
      'wrong-schema',
      'invalid-data',
      'job-running',
      'registration-running',
      'siren-registered',
      'not-registered',
      'key-taken',
      'id-taken',
      'id-not-available',
    ],
  },
  'get /transform/v1/jobs': {
    description:
      "The workspace's jobs, newest first, `limit` at a time (`next_cursor` gives the next page); filter by `silo_entry_id`, `status`, `workflow_id`, or `created_at` (at or before).",
  },
  'post /transform/v1/jobs/:id/cancel': {
    description:
      'Cancels a job until a step acting outside the service has started (for a registration: the directory step). The job ends `CANCEL` with your reason in its journal and faults, ' +
      'its mandate is voided, its wizard link revoked, the party goes `cancelled`, and a new job can start on the entry. Once the directory step has started the answer is 409 `past-directory`: ' +
      'let the job end, then run the unregistration. The body is optional. ' +
      "A cancellation and the operator's approval decision racing: exactly one wins. A submission approved first makes the cancellation 409 `already-decided` (the job goes on); " +
      'a cancellation first makes the decision 409 `job-cancelled`.',
    examples: { 'with a reason': { reason: 'the customer chose another platform' } },
    errors: ['job-ended', 'past-directory', 'already-decided', 'not-cancellable', 'temporal-unavailable'],
  },
  'get /transform/v1/jobs/key/:key': { description: 'The job created with this `key`.' },
  'get /transform/v1/jobs/:id': {
    description:
      'The job: its `status` (see the Job schema), what it is `waiting_for` in WAIT, each step run (`intents`) with its events, and its faults once it ended in error.',
  },
};
