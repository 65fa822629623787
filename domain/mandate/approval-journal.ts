// The approval wait as the API records it, in the transaction of the submission or the decision and before it
// signals the workflow: the party's state and the wait step's events. The workflow takes its signals as hints only.
import { decisionsOf } from '../../platform/store/approval-decisions';
import type { Queryable } from '../../platform/store/db';
import { currentState, recordState } from '../../platform/store/entry-states';
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
export function waitStep(job: WaitingJob): { id: string } | undefined {
  return job.definition.steps.find(isApprovalWait); // never in the rescue (definition-schema.ts)
}

/** A round is one submission and its decision: the state rows of each are recorded once (idempotent step ids). */
const round = async (q: Queryable, entryId: string, jobId: string) => (await decisionsOf(q, entryId, jobId)).length;

/**
 * A registered party stays `registered` while the new mandate of a renewal is submitted and decided: the one in
 * force still holds, and the directory and Peppol still list it.
 */
export async function recordSubmission(q: Queryable, entryId: string, job: WaitingJob): Promise<void> {
  const step = waitStep(job);
  if (!step) return;
  const n = (await round(q, entryId, job.id)) + 1;
  const state = (await currentState(q, entryId)) === 'registered' ? 'registered' : 'submitted';
  if (state === 'submitted')
    await recordState(q, { entryId, state, jobId: job.id, stepId: `${step.id}/submitted/${n}` });
  await recordWaitEvent(q, job.id, step.id, {
    status: 'WAIT',
    code: 'submitted',
    message: 'submission received, awaiting approval',
  });
}

/**
 * After the decision is recorded: a rejection sends the party back to `processing` for a new submission, unless it
 * is registered (a renewal's new mandate rejected: the one in force still holds). Returns the party's state after it.
 */
export async function recordDecided(
  q: Queryable,
  entryId: string,
  job: WaitingJob,
  d: { approved: boolean; decisionId: string },
): Promise<string | undefined> {
  const step = waitStep(job);
  if (!step) return undefined;
  let state = await currentState(q, entryId);
  if (!d.approved && state !== 'registered') {
    const n = await round(q, entryId, job.id);
    state = 'processing';
    await recordState(q, { entryId, state, jobId: job.id, stepId: `${step.id}/rejected/${n}` });
  }
  await recordWaitEvent(q, job.id, step.id, {
    status: 'WAIT',
    code: d.approved ? 'approved' : 'rejected',
    message: `decision ${d.decisionId}`,
  });
  return state ?? undefined;
}

/** A first approval (four eyes): the wait goes on for a second operator's decision, the party's state unchanged. */
export async function recordFirstApproval(q: Queryable, job: WaitingJob, decisionId: string): Promise<void> {
  const step = waitStep(job);
  if (!step) return;
  await recordWaitEvent(q, job.id, step.id, {
    status: 'WAIT',
    code: 'first-approval',
    message: `decision ${decisionId}: a second approval, by another operator, is required`,
  });
}
