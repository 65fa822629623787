// What Temporal's histories say about how a registration's activities ran: which worker ran each, on which attempt,
// and what made the previous attempt fail. Used by the chaos and scale-out tests; no vitest here.
import type { Client } from '@temporalio/client';
import { temporalWorkflowId } from '../../domain/jobs/jobs';

export interface ActivityRun {
  type: string;
  /** The attempt that ended the activity (1 when it succeeded or failed for good at once). */
  attempt: number;
  /** The worker that ran that attempt: "pid@host" unless the worker was given another identity. */
  identity: string;
  /** Why the attempt before failed: a failure type (e.g. "annuaire-unavailable"), or "timeout" when its worker went silent. */
  lastFailure?: string;
}

export interface JobHistory {
  /** One entry per activity (local activities are markers, not counted). */
  activities: ActivityRun[];
  /** Workflow tasks that timed out: the worker holding them went silent (or died). */
  workflowTaskTimeouts: number;
}

export async function readHistory(client: Client, jobId: string): Promise<JobHistory> {
  const events = (await client.workflow.getHandle(temporalWorkflowId(jobId)).fetchHistory()).events ?? [];
  const typeOf = new Map<string, string>();
  const runs: ActivityRun[] = [];
  let workflowTaskTimeouts = 0;
  for (const e of events) {
    if (e.workflowTaskTimedOutEventAttributes) workflowTaskTimeouts++;
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) typeOf.set(String(e.eventId), scheduled.activityType?.name ?? '?');
    const started = e.activityTaskStartedEventAttributes;
    if (!started) continue;
    const failure = started.lastFailure;
    const lastFailure = !failure
      ? undefined
      : failure.timeoutFailureInfo
        ? 'timeout'
        : (failure.applicationFailureInfo?.type ?? failure.message ?? 'failure');
    runs.push({
      type: typeOf.get(String(started.scheduledEventId)) ?? '?',
      attempt: started.attempt ?? 1,
      identity: started.identity ?? '',
      ...(lastFailure && { lastFailure }),
    });
  }
  return { activities: runs, workflowTaskTimeouts };
}
