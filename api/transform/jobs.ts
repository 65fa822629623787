// transform/v1 jobs: a workflow run on an entry, followed, cancelled.
import crypto from 'node:crypto';
import type { Response } from 'express';
import type { z } from 'zod';
import { getJob, getJobByKey, listJobs } from '../../platform/store/job-views';
import { awaitJobSettled } from '../../domain/jobs/await-job';
import { startJob, type JobServiceDeps } from '../../domain/jobs/jobs';
import { cancelJob } from '../../domain/jobs/cancel-job';
import { ADDRESS_UPDATE_WORKFLOW_ID, UNREGISTRATION_WORKFLOW_ID } from '../../domain/jobs/builtins';
import { notFound } from '../../web/http/problem';
import { route } from '../../web/http/route';
import * as R from '../schemas';
import { auth } from '../auth';
import { REGISTRATION, STORED, dayAhead } from '../reference';
import { cancelJobBody, createJobQuery, idParam, jobBody, keyParam, listJobsQuery } from './inputs';

const EXAMPLE_ENTRY = '0b8e0c4e-7f57-4ad5-9d8f-3f3c1b1f5a10';
const START_REFUSALS = [
  'wrong-schema',
  'invalid-data',
  'job-running',
  'registration-running',
  'siren-registered',
  'not-registered',
  'key-taken',
] as const;

/** The job as accepted, or with `?wait=N` as it is once it ends or parks, or after N seconds. */
async function started(
  deps: JobServiceDeps,
  res: Response,
  id: string,
  input: z.output<typeof jobBody>,
  wait: number | undefined,
) {
  const workspaceId = auth(res).workspaceId;
  const job = await startJob(deps, workspaceId, { id, ...input });
  if (!wait) return job;
  const left = new AbortController();
  res.once('close', () => left.abort());
  await awaitJobSettled(deps.db, workspaceId, job.id, wait, left.signal);
  return (await getJob(deps.db, workspaceId, job.id)) ?? job;
}

export const jobRoutes = [
  route({
    method: 'post',
    path: '/transform/v1/jobs',
    operationId: 'createJob',
    summary: 'Run a workflow on an entry',
    description:
      `Runs a workflow on an entry: one of the built-ins — the registration \`${REGISTRATION}\`, the unregistration \`${UNREGISTRATION_WORKFLOW_ID}\`, the address update \`${ADDRESS_UPDATE_WORKFLOW_ID}\` (GET /transform/v1/workflows lists them) — or one of your own. ` +
      'The built-in registration issues the mandate, publishes the wizard link (`approval-link` meta) and waits for the signer and the operator; then it registers the party in the PPF Annuaire and on Peppol. ' +
      'The answer is 202 with the job as accepted; follow it with `GET /transform/v1/jobs/{id}`, the entry, or webhooks. With `?wait=N` (at most 60) it answers once the job ends or waits, or after N seconds. ' +
      'An entry runs one job at a time, and a SIREN is registered once per workspace. ' +
      'An unregistration takes `args.leave_on` (YYYY-MM-DD, today to a year ahead): the company leaves us for another platform that day; the job waits for it, our records in place, and can be cancelled meanwhile. ' +
      `\`args\` hold at most ${STORED.values} JSON values and keys and ${STORED.bytes} bytes as compact JSON (400 naming the limit).`,
    scope: 'jobs:rw',
    query: createJobQuery,
    body: jobBody,
    responses: { 202: R.job },
    examples: {
      'register an entry': { workflow_id: REGISTRATION, silo_entry_id: EXAMPLE_ENTRY, key: 'register-552032534' },
      'update the addresses of a registered entry': {
        workflow_id: ADDRESS_UPDATE_WORKFLOW_ID,
        silo_entry_id: EXAMPLE_ENTRY,
      },
      'leave for another platform on a day': {
        workflow_id: UNREGISTRATION_WORKFLOW_ID,
        silo_entry_id: EXAMPLE_ENTRY,
        args: { leave_on: dayAhead(30) },
      },
    },
    errors: ['not-found', ...START_REFUSALS, 'id-not-available'],
    handle: ({ query, body, res }, deps: JobServiceDeps) => started(deps, res, crypto.randomUUID(), body, query.wait),
  }),
  route({
    method: 'put',
    path: '/transform/v1/jobs/:id',
    operationId: 'putJob',
    summary: 'Run a workflow on an entry, with a client-chosen job id',
    description: 'As `POST /transform/v1/jobs`, with the job id chosen by the client: a retry cannot start two jobs.',
    scope: 'jobs:rw',
    params: idParam,
    query: createJobQuery,
    body: jobBody,
    responses: { 202: R.job },
    examples: { 'register an entry': { workflow_id: REGISTRATION, silo_entry_id: EXAMPLE_ENTRY } },
    errors: [...START_REFUSALS, 'id-taken', 'id-not-available'],
    handle: ({ params, query, body, res }, deps: JobServiceDeps) => started(deps, res, params.id, body, query.wait),
  }),
  route({
    method: 'get',
    path: '/transform/v1/jobs',
    operationId: 'listJobs',
    summary: 'List jobs, newest first (by entry, status, workflow, what they wait for)',
    description:
      "The workspace's jobs, newest first, `limit` at a time (`next_cursor` gives the next page); filter by `silo_entry_id`, `status`, `workflow_id`, `waiting_for` (`decision`: the submissions an operator has to decide on), or `created_at` (at or before).",
    scope: 'jobs:rw',
    query: listJobsQuery,
    responses: { 200: R.jobPage },
    handle: async ({ query: q, res }, { db }: JobServiceDeps) => {
      const page = await listJobs(db, auth(res).workspaceId, {
        limit: q.limit,
        cursor: q.cursor,
        createdAt: q.created_at,
        entryId: q.silo_entry_id,
        status: q.status,
        workflowId: q.workflow_id,
        waitingFor: q.waiting_for,
      });
      return {
        limit: q.limit,
        ...(q.cursor && { cursor: q.cursor }),
        ...(q.created_at && { created_at: q.created_at }),
        ...page,
      };
    },
  }),
  route({
    method: 'post',
    path: '/transform/v1/jobs/:id/cancel',
    operationId: 'cancelJob',
    summary: 'Cancel a job, until a step acting outside (directory, Peppol) has started',
    description:
      'Cancels a job until a step acting outside the service has started (for a registration: the directory step). The job ends `CANCEL` with your reason in its journal and faults, ' +
      'its mandate is voided, its wizard link revoked, the party goes `cancelled`, and a new job can start on the entry. Once the directory step has started the answer is 409 `past-directory`: ' +
      'let the job end, then run the unregistration. The body is optional. ' +
      "A cancellation and the operator's approval decision racing: exactly one wins. A submission approved first makes the cancellation 409 `already-decided` (the job goes on); " +
      'a cancellation first makes the decision 409 `job-cancelled`.',
    scope: 'jobs:rw',
    params: idParam,
    body: cancelJobBody,
    bodyParsing: 'optional',
    responses: { 200: R.job },
    examples: { 'with a reason': { reason: 'the customer chose another platform' } },
    errors: ['job-ended', 'past-directory', 'already-decided', 'not-cancellable', 'temporal-unavailable'],
    handle: ({ params, body, res }, deps: JobServiceDeps) =>
      cancelJob(deps, auth(res).workspaceId, params.id, body?.reason ?? 'cancelled through the API'),
  }),
  route({
    method: 'get',
    path: '/transform/v1/jobs/key/:key',
    operationId: 'getJobByKey',
    summary: 'Fetch a job by its key',
    description: 'The job created with this `key`.',
    scope: 'jobs:rw',
    params: keyParam,
    responses: { 200: R.job },
    handle: async ({ params, res }, { db }: JobServiceDeps) => {
      const job = await getJobByKey(db, auth(res).workspaceId, params.key);
      if (!job) throw notFound(`job with key "${params.key}"`);
      return job;
    },
  }),
  route({
    method: 'get',
    path: '/transform/v1/jobs/:id',
    operationId: 'getJob',
    summary: 'Fetch a job, its steps and faults',
    description:
      'The job: its `status` (see the Job schema), what it is `waiting_for` in WAIT, each step run (`intents`) with its events, and its faults once it ended in error.',
    scope: 'jobs:rw',
    params: idParam,
    responses: { 200: R.job },
    handle: async ({ params, res }, { db }: JobServiceDeps) => {
      const job = await getJob(db, auth(res).workspaceId, params.id);
      if (!job) throw notFound(`job ${params.id}`);
      return job;
    },
  }),
];
