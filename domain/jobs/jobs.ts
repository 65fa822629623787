// Starting a job: record it, then start its Temporal workflow. The workflow id is derived from the job id and
// may never be reused, so no job can run twice. A job recorded while Temporal is unreachable stays QUEUED and
// is started by the sweeper (startQueuedJobs) — nothing the client was told was accepted is lost.
import { DomainError } from '../errors';
import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { WorkflowIdReusePolicy, type Priority } from '@temporalio/common';
import type { Logger } from 'pino';
import type { Config } from '../../platform/config';
import type { Db } from '../../platform/store/db';
import { markJobsStarted, queuedJobs } from '../../platform/store/jobs';
import { recordJob } from './record-job';
import { markStarted } from './started-marks';
import { type JobView } from '../../platform/store/job-views';
import type { Definition, JobInput } from '../../contract/job';
import { jobPriority } from '../../contract/campaigns';
import { JobStatus, SiloEntryId, Siren } from '../../contract/search-attributes';
import { ADDRESS_UPDATE_STEPS, REGISTRATION_STEPS, UNREGISTRATION_STEPS } from '../../contract/definitions';
import {
  type BuiltinJobWorkflow,
  type DefinitionJobWorkflow,
  type JobWorkflowType,
} from '../../contract/workflow-types';
import { REGISTRATION_WORKFLOW_ID, UNREGISTRATION_WORKFLOW_ID } from './builtins';
import { findWorkflow } from './workflow-catalog';
import { legalPersonName } from '../party/legal-forms';

export class JobRequestError extends DomainError {}

export interface JobServiceDeps {
  db: Db;
  temporal: Client;
  log: Logger;
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'APPROVAL_DEADLINE'>;
}

export const temporalWorkflowId = (jobId: string) => `job-${jobId}`;
/** The job a run of ours is for, from its workflow id (temporalWorkflowId). */
export const jobIdOfWorkflow = (workflowId: string) => workflowId.replace(/^job-/, '');

/** The Temporal workflow a job runs: the built-ins their own, a workspace's definition interpreted. */
export const workflowTypeOf = (workflowId: string): JobWorkflowType =>
  workflowId === REGISTRATION_WORKFLOW_ID
    ? 'registration'
    : workflowId === UNREGISTRATION_WORKFLOW_ID
      ? 'unregistration'
      : 'runDefinition';

/** The job argument naming the day a company leaves us for another platform (an unregistration's). */
export const LEAVE_ON_ARG = 'leave_on';

/** `leave_on`: only an unregistration's, a day from today to a year ahead (UTC, as the directory counts). */
function checkLeaveDay(args: Record<string, string>, unregisters: boolean, now = new Date()): void {
  const day = args[LEAVE_ON_ARG];
  if (day === undefined) return;
  const refuse = (message: string) => {
    throw new DomainError('invalid-request', `invalid body: args.${LEAVE_ON_ARG}: ${message}`, {
      field: { path: `body.args.${LEAVE_ON_ARG}`, message },
    });
  };
  if (!unregisters) refuse('only an unregistration takes a leaving day');
  const today = now.toISOString().slice(0, 10);
  const latest = new Date(now.getTime() + 366 * 86_400_000).toISOString().slice(0, 10);
  const time = /^\d{4}-\d{2}-\d{2}$/.test(day) ? Date.parse(`${day}T00:00:00Z`) : NaN;
  const valid = !Number.isNaN(time) && new Date(time).toISOString().startsWith(day); // 2026-02-30 is no day
  if (!valid || day < today || day > latest) refuse(`a day from ${today} to ${latest} (YYYY-MM-DD)`);
}

/** An address update: its definition updates a registered entry's directory lines. */
const updatesDirectory = (d: Definition) => d.steps.some((s) => s.provider === ADDRESS_UPDATE_STEPS.directory.provider);

/** A registration: its definition (built in or a workspace's) registers the entry's SIREN in the directory. */
const registersInDirectory = (d: Definition) =>
  d.steps.some((s) => s.provider === REGISTRATION_STEPS.directory.provider);
/** An unregistration: its definition ends the entry's directory line. */
const unregistersFromDirectory = (d: Definition) =>
  d.steps.some((s) => s.provider === UNREGISTRATION_STEPS.directory.provider);

export async function startJob(
  deps: JobServiceDeps,
  workspaceId: string,
  req: {
    id: string;
    workflow_id: string;
    silo_entry_id: string;
    key?: string;
    args: Record<string, string>;
    tags: string[];
    /** Temporal's task priority and fairness key (a campaign's registrations yield to single ones). */
    priority?: Priority;
  },
): Promise<JobView> {
  const workflow = await findWorkflow(deps.db, workspaceId, req.workflow_id);
  if (!workflow) throw new JobRequestError('not-found', `workflow ${req.workflow_id} not found`);
  const definition = { steps: workflow.steps, rescue: workflow.rescue };
  const workflowType = workflowTypeOf(workflow.id);
  checkLeaveDay(req.args, unregistersFromDirectory(definition));
  const inserted = await recordJob(deps.db, {
    id: req.id,
    workspaceId,
    key: req.key,
    workflowId: workflow.id,
    workflowType,
    entryId: req.silo_entry_id,
    docSchema: workflow.schema,
    definition,
    args: req.args,
    tags: req.tags,
    registers: registersInDirectory(definition),
    // Only a registered entry has lines to end or to update.
    unregisters: unregistersFromDirectory(definition) || updatesDirectory(definition),
  });
  if (inserted.outcome === 'no-entry')
    throw new JobRequestError('not-found', `silo entry ${req.silo_entry_id} not found`);
  if (inserted.outcome === 'wrong-schema') {
    throw new JobRequestError(
      'wrong-schema',
      `workflow ${workflow.id} processes ${workflow.schema} entries, not ${inserted.schema}`,
    );
  }
  if (inserted.outcome === 'siren-registered') {
    throw new JobRequestError(
      'siren-registered',
      inserted.entryId === req.silo_entry_id
        ? `entry ${req.silo_entry_id} is already registered (SIREN ${inserted.siren}): unregister it before registering it again`
        : `SIREN ${inserted.siren} is already registered by entry ${inserted.entryId}: unregister that entry first`,
    );
  }
  if (inserted.outcome === 'not-registered') {
    throw new JobRequestError(
      'not-registered',
      `entry ${req.silo_entry_id} has nothing to ${updatesDirectory(definition) ? 'update' : 'unregister'}: it ${inserted.state ? `is ${inserted.state}` : 'was never registered'}`,
    );
  }
  if (inserted.outcome === 'invalid-data') {
    throw new JobRequestError(
      'invalid-data',
      `entry ${req.silo_entry_id} holds an invalid party (kept with allow_invalid): ${inserted.faults.map((f) => f.message).join('; ')}. Correct it with PATCH /silo/v1/entries/${req.silo_entry_id} first`,
    );
  }
  const { job } = inserted;
  const started = await launch(deps, {
    jobId: job.id,
    workspaceId,
    entryId: job.silo_entry_id,
    siren: inserted.siren,
    name: inserted.name,
    workflowType,
    definition,
    label: workflow.name,
    args: req.args,
    ...(req.priority && { priority: req.priority }),
  });
  if (started) markStarted(deps.db, deps.log, job.id); // RUN with the others started meanwhile
  return job; // as accepted (QUEUED, no step run yet): clients follow it with GET /jobs/{id}
}

interface Launch {
  jobId: string;
  workspaceId: string;
  entryId: string;
  siren: string | null;
  name: string | null;
  workflowType: JobWorkflowType;
  definition: Definition;
  label: string;
  args: Record<string, string>;
  priority?: Priority;
}

/**
 * What the Temporal UI lists the run as: the job's workflow and the company, by its SIREN, and by its name for a
 * legal person only (a sole trader's is a person's name, which Temporal must not hold); by its entry without a SIREN.
 */
export function runSummary(j: { label: string; siren: string | null; name: string | null; entryId: string }): string {
  if (!j.siren) return `${j.label} — entry ${j.entryId}`;
  const name = legalPersonName(j.name);
  return `${j.label} — SIREN ${j.siren}${name ? ` (${name})` : ''}`;
}

/** Starts the job's workflow; false when Temporal could not be reached (the job stays QUEUED). The caller marks it RUN. */
async function launch(deps: JobServiceDeps, j: Launch): Promise<boolean> {
  const input: JobInput = {
    jobId: j.jobId,
    workspaceId: j.workspaceId,
    entryId: j.entryId,
    approvalDeadline: deps.config.APPROVAL_DEADLINE,
    showsWaitingFor: true,
    // Leaving us on a later day: the unregistration's first step waits for it (our records stay until then).
    ...(j.args[LEAVE_ON_ARG] && { notBefore: `${j.args[LEAVE_ON_ARG]}T00:00:00.000Z` }),
  };
  const options = {
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    workflowId: temporalWorkflowId(j.jobId),
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    typedSearchAttributes: [
      { key: SiloEntryId, value: j.entryId },
      // Running once started: the workflow does not upsert it again (one visibility write less per run).
      { key: JobStatus, value: 'RUN' },
      ...(j.siren ? [{ key: Siren, value: j.siren }] : []),
    ],
    staticSummary: runSummary(j),
    ...(j.priority && { priority: j.priority }),
  };
  const start = <W extends BuiltinJobWorkflow | DefinitionJobWorkflow>(type: string, args: Parameters<W>) =>
    deps.temporal.workflow.start<W>(type, { ...options, args });
  try {
    // Bounded: when Temporal is down the client would otherwise keep retrying while the HTTP caller waits.
    await deps.temporal.withDeadline(Date.now() + 5_000, () =>
      j.workflowType === 'runDefinition'
        ? start<DefinitionJobWorkflow>(j.workflowType, [{ ...input, definition: j.definition }])
        : start<BuiltinJobWorkflow>(j.workflowType, [input]),
    );
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) {
      deps.log.warn({ jobId: j.jobId, err }, 'could not start the job workflow; it stays QUEUED for the sweeper');
      return false;
    }
  }
  return true;
}

/** Starts the workflows of jobs left QUEUED (Temporal was unreachable). Safe to run anywhere, any number of times. */
export async function startQueuedJobs(deps: JobServiceDeps, olderThanMs = 10_000): Promise<number> {
  const started: string[] = [];
  for (const j of await queuedJobs(deps.db, olderThanMs, 100)) {
    // The label the Temporal UI shows, as a job started at once has it (a workflow deleted since: its type).
    const label = (await findWorkflow(deps.db, j.workspaceId, j.workflowId))?.name ?? j.workflowType;
    // A campaign's job keeps the campaign's lower priority (its key says it is one).
    const priority = jobPriority(j.key, j.workspaceId);
    if (await launch(deps, { ...j, label, ...(priority && { priority }) })) started.push(j.jobId);
    else break; // still unreachable: try again next round
  }
  if (started.length) await markJobsStarted(deps.db, started);
  return started.length;
}
