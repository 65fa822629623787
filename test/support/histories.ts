// What Temporal's histories say about how a registration's activities ran: which worker ran each, on which attempt,
// and what made the previous attempt fail. Used by the chaos and scale-out tests; no vitest here.
import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
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
  /** How long each task waited in its task queue, scheduled to started, in ms (activities: first attempts only). */
  waits: { workflowTask: number[]; activity: number[] };
}

export async function readHistory(client: Client, jobId: string): Promise<JobHistory> {
  const events = (await client.workflow.getHandle(temporalWorkflowId(jobId)).fetchHistory()).events ?? [];
  const typeOf = new Map<string, string>();
  const runs: ActivityRun[] = [];
  let workflowTaskTimeouts = 0;
  const scheduledAt = new Map<string, number>();
  const waits: JobHistory['waits'] = { workflowTask: [], activity: [] };
  const waited = (scheduledEventId: unknown, e: (typeof events)[number]) =>
    millisOf(e.eventTime) - (scheduledAt.get(String(scheduledEventId)) ?? millisOf(e.eventTime));
  for (const e of events) {
    if (e.workflowTaskTimedOutEventAttributes) workflowTaskTimeouts++;
    if (e.workflowTaskScheduledEventAttributes) scheduledAt.set(String(e.eventId), millisOf(e.eventTime));
    const taskStarted = e.workflowTaskStartedEventAttributes;
    if (taskStarted) waits.workflowTask.push(waited(taskStarted.scheduledEventId, e));
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) {
      typeOf.set(String(e.eventId), scheduled.activityType?.name ?? '?');
      scheduledAt.set(String(e.eventId), millisOf(e.eventTime));
    }
    const started = e.activityTaskStartedEventAttributes;
    if (!started) continue;
    if ((started.attempt ?? 1) === 1) waits.activity.push(waited(started.scheduledEventId, e));
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
  return { activities: runs, workflowTaskTimeouts, waits };
}

const millisOf = (t: Parameters<typeof tsToMs>[0]) => (t ? tsToMs(t) : 0);

/** "median / 95th percentile / slowest" of some waits, in seconds. */
export function waitSummary(ms: number[]): string {
  if (ms.length === 0) return 'none';
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! / 1000).toFixed(2);
  return `${at(0.5)} / ${at(0.95)} / ${(sorted.at(-1)! / 1000).toFixed(2)} s`;
}
