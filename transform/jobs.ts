// Starting a job: record it, then start its Temporal workflow. The workflow id is derived from the job id,
// so a retried start can never run the same job twice.
import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Db } from '../store/db';
import { getEntryRow } from '../store/entries';
import { deleteQueuedJob, getJob, insertJob, type JobView } from '../store/jobs';
import { JobStatus, SiloEntryId, Siren } from '../workflows/search-attributes';
import type { JobInput } from '../workflows/types';
import { findWorkflow } from './workflow-catalog';

export class JobRequestError extends Error {
  constructor(readonly status: 404 | 409 | 422 | 503, message: string) {
    super(message);
  }
}

export interface JobServiceDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  approvalDeadline: string;
}

export const temporalWorkflowId = (jobId: string) => `job-${jobId}`;

export async function startJob(
  deps: JobServiceDeps,
  workspaceId: string,
  req: { id: string; workflow_id: string; silo_entry_id: string; key?: string; args: Record<string, string>; tags: string[] },
): Promise<JobView> {
  const workflow = await findWorkflow(deps.db, workspaceId, req.workflow_id);
  if (!workflow) throw new JobRequestError(404, `workflow ${req.workflow_id} not found`);
  const entry = await getEntryRow(deps.db, workspaceId, req.silo_entry_id);
  if (!entry) throw new JobRequestError(404, `silo entry ${req.silo_entry_id} not found`);
  if (entry.doc_schema !== workflow.schema) {
    throw new JobRequestError(422, `workflow ${workflow.id} processes ${workflow.schema} entries, not ${entry.doc_schema}`);
  }

  const definition = { steps: workflow.steps, rescue: workflow.rescue };
  await insertJob(deps.db, {
    id: req.id, workspaceId, key: req.key, workflowId: workflow.id, entryId: entry.id, definition, args: req.args, tags: req.tags,
  });

  const input: JobInput = {
    jobId: req.id,
    workspaceId,
    entryId: entry.id,
    ...(entry.siren && { siren: entry.siren }),
    definition,
    approvalDeadline: deps.approvalDeadline,
  };
  try {
    await deps.temporal.workflow.start('runJob', {
      taskQueue: deps.taskQueue,
      workflowId: temporalWorkflowId(req.id),
      args: [input],
      typedSearchAttributes: [
        { key: SiloEntryId, value: entry.id },
        { key: JobStatus, value: 'QUEUED' },
        ...(entry.siren ? [{ key: Siren, value: entry.siren }] : []),
      ],
      staticSummary: `${workflow.name} — entry ${entry.id}`,
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) {
      // The job was never started: forget it so the client can simply retry the same request.
      await deleteQueuedJob(deps.db, req.id);
      throw new JobRequestError(503, `the workflow engine is unavailable, retry later (${(err as Error).message})`);
    }
  }
  return (await getJob(deps.db, workspaceId, req.id))!;
}
