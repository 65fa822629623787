// Cancelling a job: the workflow decides (the cancel update), as only it knows whether a step acting outside — the
// directory, Peppol — has started; until then it records the cancellation itself (activities/job-cancel.ts). A job
// whose workflow never started (Temporal was unreachable) is cancelled in the store alone.
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { getJob, type JobView } from '../../platform/store/job-views';
import { cancelQueuedJob, claimCancellation, clearCancelReason } from '../../platform/store/job-cancellation';
import { CANCEL_REFUSED, cancelUpdate } from '../../contract/signals';
import { providerOf } from '../../contract/providers';
import { UNREGISTRATION_WORKFLOW_ID } from './builtins';
import { JobRequestError, temporalWorkflowId, type JobServiceDeps } from './jobs';

const ENDED = new Set(['OK', 'ERR', 'CANCEL']);

/** How long the caller waits for the workflow to record the cancellation (one store write). */
const CANCEL_DEADLINE_MS = 15_000;

export async function cancelJob(
  deps: JobServiceDeps,
  workspaceId: string,
  jobId: string,
  reason: string,
): Promise<JobView> {
  const job = await getJob(deps.db, workspaceId, jobId);
  if (!job) throw new JobRequestError('not-found', `job ${jobId} not found`);
  if (ENDED.has(job.status)) throw ended(job);
  // In the store first: the workflow's cancel activity takes it from there (free text never enters Temporal). Claimed
  // there against the operator's approval (one of them wins: domain/mandate/decision.ts decide takes the same lock).
  const { approvedBy } = await claimCancellation(deps.db, jobId, reason);
  if (approvedBy) throw approved((await getJob(deps.db, workspaceId, jobId)) ?? job, approvedBy);
  const handle = deps.temporal.workflow.getHandle(temporalWorkflowId(jobId));
  try {
    await deps.temporal.withDeadline(Date.now() + CANCEL_DEADLINE_MS, () => handle.executeUpdate(cancelUpdate));
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) {
      await clearCancelReason(deps.db, jobId, reason); // the job goes on: no reason of a cancellation that did not happen
      throw refused(job, err.cause);
    }
    if (!(err instanceof WorkflowNotFoundError)) {
      deps.log.warn({ jobId, err }, 'could not cancel the job through Temporal');
      throw new JobRequestError(
        'temporal-unavailable',
        `the job's workflow could not be reached (${(err as Error).message}): try again`,
        { retryAfterS: 5 },
      );
    }
    if (!(await cancelQueuedJob(deps.db, jobId))) throw ended((await getJob(deps.db, workspaceId, jobId)) ?? job);
  }
  const now = (await getJob(deps.db, workspaceId, jobId))!;
  if (now.status !== 'CANCEL') throw ended(now); // it ended on its own while the cancellation was on its way
  return now;
}

const ended = (job: Pick<JobView, 'id' | 'status'>) =>
  new JobRequestError('job-ended', `job ${job.id} has ended (${job.status}): there is nothing to cancel`);

/** Its submission was approved first: the job goes on to the directory and Peppol (unless it ended meanwhile). */
function approved(job: JobView, decisionId: string): JobRequestError {
  if (ENDED.has(job.status)) return ended(job);
  if (job.intents.some((i) => actsOutside(i.provider))) return outsideRefusal(job);
  return new JobRequestError(
    'already-decided',
    `job ${job.id} can no longer be cancelled: its submission has been approved (decision ${decisionId}) and it goes on to the directory and Peppol. ` +
      `Let it end; to undo the registration, run the unregistration (POST /transform/v1/jobs with workflow_id ${UNREGISTRATION_WORKFLOW_ID})`,
  );
}

const actsOutside = (provider: string) => {
  const spec = providerOf(provider);
  return spec?.kind === 'activity' && spec.outside === true;
};

function outsideRefusal(job: JobView): JobRequestError {
  const step = job.intents.at(-1);
  return new JobRequestError(
    'past-directory',
    `job ${job.id} can no longer be cancelled: it has started acting outside (step "${step?.name ?? '?'}", ${step?.provider ?? '?'}), in the directory or on Peppol. ` +
      `Let it end; to undo a registration, run the unregistration (POST /transform/v1/jobs with workflow_id ${UNREGISTRATION_WORKFLOW_ID})`,
  );
}

function refused(job: JobView, cause: Error | undefined): JobRequestError {
  const type = cause instanceof ApplicationFailure ? cause.type : undefined;
  if (type === CANCEL_REFUSED.outside) return outsideRefusal(job);
  if (type === CANCEL_REFUSED.ended)
    return new JobRequestError(
      'job-ended',
      `job ${job.id} is ending (its last step or its rescue runs): there is nothing to cancel`,
    );
  // Not a refusal of ours: the workflow could not take the update.
  return new JobRequestError(
    'not-cancellable',
    `job ${job.id} cannot be cancelled: its workflow takes no cancellation (${cause?.message ?? 'refused'}). An operator can terminate it in the Temporal UI`,
  );
}
