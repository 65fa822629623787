// The approval wait as the API records it, in the transaction of the submission or the decision and before it
// signals the workflow: the party's state and the wait step's events. The workflow takes its signals as hints only.
import { decisionsOf } from '../../platform/store/approval-decisions';
import type { Queryable } from '../../platform/store/db';
import { recordState } from '../../platform/store/entry-states';
import { recordWaitEvent } from '../../platform/store/job-journal';
import { isApprovalWait } from '../../contract/providers';
import type { Definition } from '../../contract/job';

export interface WaitingJob {
  id: string;
  status: string;
  workflowType: string;
  definition: Definition;
}

/** The job's approval wait step. */
function waitStep(job: WaitingJob): { id: string } | undefined {
  return job.definition.steps.find(isApprovalWait); // never in the rescue (definition-schema.ts)
}

/** A round is one submission and its decision: the state rows of each are recorded once (idempotent step ids). */
const round = async (q: Queryable, entryId: string, jobId: string) => (await decisionsOf(q, entryId, jobId)).length;

export async function recordSubmission(q: Queryable, entryId: string, job: WaitingJob): Promise<void> {
  const step = waitStep(job);
  if (!step) return;
  const n = (await round(q, entryId, job.id)) + 1;
  await recordState(q, { entryId, state: 'submitted', jobId: job.id, stepId: `${step.id}/submitted/${n}` });
  await recordWaitEvent(q, job.id, step.id, {
    status: 'WAIT',
    code: 'submitted',
    message: 'submission received, awaiting approval',
  });
}

/** After the decision is recorded: a rejection sends the party back to `processing` for a new submission. */
export async function recordDecided(
  q: Queryable,
  entryId: string,
  job: WaitingJob,
  d: { approved: boolean; decisionId: string },
): Promise<void> {
  const step = waitStep(job);
  if (!step) return;
  if (!d.approved) {
    const n = await round(q, entryId, job.id);
    await recordState(q, { entryId, state: 'processing', jobId: job.id, stepId: `${step.id}/rejected/${n}` });
  }
  await recordWaitEvent(q, job.id, step.id, {
    status: 'WAIT',
    code: d.approved ? 'approved' : 'rejected',
    message: `decision ${d.decisionId}`,
  });
}
