// transform/v1: workflow definitions and jobs.
import crypto from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { Db } from '../platform/store/db';
import { getJob, getJobByKey, listJobs } from '../platform/store/job-views';
import { decodeTimeCursor } from '../platform/store/rows';
import { type WorkflowView } from '../platform/store/workflows';
import { workflowInput } from '../domain/jobs/definition-schema';
import { awaitJobSettled } from '../domain/jobs/await-job';
import { startJob, type JobServiceDeps } from '../domain/jobs/jobs';
import { cancelJob } from '../domain/jobs/cancel-job';
import { findWorkflow, listAllWorkflows, saveWorkflow } from '../domain/jobs/workflow-catalog';
import { auth, requireScope } from './auth';
import { notFound } from '../web/http/problem';
import { body, params, query } from '../web/http/validate';
import { STORED_JSON_LIMITS, jsonOverLimits } from '../web/http/bounded-json';

export const idParam = z.object({ id: z.uuid({ error: 'must be a UUID' }) });
export const keyParam = z.object({ key: z.string().min(1).max(255) });

export const jobBody = z.strictObject({
  workflow_id: z.uuid({ error: 'must be a UUID' }),
  silo_entry_id: z.uuid({ error: 'must be a UUID' }),
  key: z.string().trim().min(1).max(255).optional(),
  args: z
    .record(z.string().max(100), z.string().max(10_000))
    .superRefine((args, ctx) => {
      const over = jsonOverLimits(args, 'args', STORED_JSON_LIMITS);
      if (over) ctx.addIssue({ code: 'custom', message: over });
    })
    .describe(
      `stored with the job: at most ${STORED_JSON_LIMITS.values.toLocaleString('en')} values and keys and ` +
        `${STORED_JSON_LIMITS.bytes.toLocaleString('en')} bytes as JSON`,
    )
    .default({}),
  tags: z.array(z.string().trim().min(1).max(100)).max(20).default([]),
});

/** A definition as it is stored (its steps and rescue, copied into each of its jobs): within STORED_JSON_LIMITS. */
const workflowBody = workflowInput.superRefine((w, ctx) => {
  const stored = { steps: w.steps, rescue: w.rescue };
  const over = jsonOverLimits(stored, 'a workflow definition (its steps and rescue)', STORED_JSON_LIMITS);
  if (over) ctx.addIssue({ code: 'custom', path: ['steps'], message: over });
});

export const createJobQuery = z.strictObject({
  wait: z.coerce
    .number({ error: 'a number of seconds' })
    .int('whole seconds')
    .min(0)
    .max(60, 'at most 60 seconds')
    .optional(),
});

export const JOB_STATUSES = ['QUEUED', 'RUN', 'WAIT', 'OK', 'ERR', 'CANCEL'] as const;

export const listJobsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100, 'at most 100').default(20),
  cursor: z
    .string()
    .max(200)
    .refine((c) => decodeTimeCursor(c) !== undefined, 'not a cursor from a previous page')
    .optional(),
  created_at: z.iso
    .datetime({ offset: true, error: 'an ISO 8601 timestamp, e.g. 2026-11-27T00:00:00Z' })
    .refine((t) => new Date(t).getUTCFullYear() >= 1970, 'a time from 1970 on')
    .optional(),
  silo_entry_id: z.uuid({ error: 'must be a UUID' }).optional(),
  status: z.enum(JOB_STATUSES, { error: `one of ${JOB_STATUSES.join(', ')}` }).optional(),
  workflow_id: z.uuid({ error: 'must be a UUID' }).optional(),
});

export const cancelJobBody = z.strictObject({
  reason: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .optional()
    .describe('why, as the job\'s journal and fault will say; "cancelled through the API" when not given'),
});

export const listWorkflowsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100, 'at most 100').default(20),
  schema: z.string().max(50).optional(),
});

/** A definition as the public API shows it: each step names its provider as `action` too (its name there). */
const onWire = (wf: WorkflowView) => {
  const withAction = (s: WorkflowView['steps'][number]) => ({ ...s, action: s.provider });
  return { ...wf, steps: wf.steps.map(withAction), rescue: wf.rescue.map(withAction) };
};

export function jobsRouter(deps: JobServiceDeps): Router {
  const db: Db = deps.db;
  const r = Router();
  r.use(requireScope('jobs:rw'));

  r.put('/workflows/:id', async (req, res) => {
    const { id } = params(req, idParam);
    const doc = body(req, workflowBody);
    res.json(onWire(await saveWorkflow(db, auth(res).workspaceId, id, doc)));
  });

  r.get('/workflows', async (req, res) => {
    const q = query(req, listWorkflowsQuery);
    res.json({
      limit: q.limit,
      ...(q.schema && { schema: q.schema }),
      list: (await listAllWorkflows(db, auth(res).workspaceId, q)).map(onWire),
    });
  });

  r.get('/workflows/:id', async (req, res) => {
    const { id } = params(req, idParam);
    const wf = await findWorkflow(db, auth(res).workspaceId, id);
    if (!wf) throw notFound(`workflow ${id}`);
    res.json(onWire(wf));
  });

  const create = (workspaceId: string, id: string, input: z.infer<typeof jobBody>) =>
    startJob(deps, workspaceId, { id, ...input });

  /** The job as accepted, or with `?wait=N` as it is once it ends or parks, or after N seconds. */
  const answer = async (req: Request, res: Response, id: string) => {
    const { wait } = query(req, createJobQuery);
    const workspaceId = auth(res).workspaceId;
    let job = await create(workspaceId, id, body(req, jobBody));
    if (wait) {
      const left = new AbortController();
      res.once('close', () => left.abort());
      await awaitJobSettled(db, workspaceId, job.id, wait, left.signal);
      job = (await getJob(db, workspaceId, job.id)) ?? job;
    }
    res.status(202).json(job);
  };

  r.post('/jobs', (req, res) => answer(req, res, crypto.randomUUID()));

  r.put('/jobs/:id', (req, res) => answer(req, res, params(req, idParam).id));

  r.get('/jobs', async (req, res) => {
    const q = query(req, listJobsQuery);
    const page = await listJobs(db, auth(res).workspaceId, {
      limit: q.limit,
      cursor: q.cursor,
      createdAt: q.created_at,
      entryId: q.silo_entry_id,
      status: q.status,
      workflowId: q.workflow_id,
    });
    res.json({
      limit: q.limit,
      ...(q.cursor && { cursor: q.cursor }),
      ...(q.created_at && { created_at: q.created_at }),
      ...page,
    });
  });

  // Until a step acting outside (the directory, Peppol) has started: then 409, and unregistration undoes it.
  r.post('/jobs/:id/cancel', async (req, res) => {
    const { id } = params(req, idParam);
    const { reason } = req.body === undefined && !req.is('application/json') ? {} : body(req, cancelJobBody);
    res.json(await cancelJob(deps, auth(res).workspaceId, id, reason ?? 'cancelled through the API'));
  });

  r.get('/jobs/key/:key', async (req, res) => {
    const { key } = params(req, keyParam);
    const job = await getJobByKey(db, auth(res).workspaceId, key);
    if (!job) throw notFound(`job with key "${key}"`);
    res.json(job);
  });

  r.get('/jobs/:id', async (req, res) => {
    const { id } = params(req, idParam);
    const job = await getJob(db, auth(res).workspaceId, id);
    if (!job) throw notFound(`job ${id}`);
    res.json(job);
  });

  return r;
}
