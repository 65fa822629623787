// What runs in the background for jobs: starting those left QUEUED and signalling approvals again (in each API
// process, every few seconds: README's Reconciliation says why not a Schedule), closing jobs whose workflow was ended
// in the Temporal UI and having runs parked before the WaitingFor search attribute write it (the job-housekeeping
// Schedule's activity, activities/job-sweep.ts).
import { runPeriodically } from '../../platform/periodic';
import { approvedButWaiting, setJobStatus } from '../../platform/store/jobs';
import { waitingForOfJobs } from '../../platform/store/waiting-for';
import { approvalSignal, showWaitingForSignal } from '../../contract/signals';
import { jobIdOfWorkflow, startQueuedJobs, temporalWorkflowId, type JobServiceDeps } from './jobs';

/**
 * Jobs whose workflow ended without saying so (terminated, cancelled or timed out in Temporal by an operator) are
 * closed ERR, so that their entry is free for a new job. Found through the search attributes: cheap at any scale.
 */
export async function closeAbandonedJobs(deps: JobServiceDeps): Promise<number> {
  let closed = 0;
  const query = 'ExecutionStatus != "Running" AND JobStatus IN ("QUEUED", "RUN", "WAIT")';
  for await (const wf of deps.temporal.workflow.list({ query, pageSize: 100 })) {
    const jobId = jobIdOfWorkflow(wf.workflowId);
    const status = wf.status.name.toLowerCase().replaceAll('_', '-');
    await setJobStatus(deps.db, jobId, 'ERR', [
      {
        provider: 'temporal',
        code: `workflow-${status}`,
        message: `the job's workflow ended (${status}) before finishing its steps`,
      },
    ]);
    deps.log.warn({ jobId, status }, 'closed a job whose workflow ended outside the interpreter');
    if (++closed >= 100) break;
  }
  return closed;
}

/**
 * Signals again the registrations still waiting long after their approval was recorded: the API signals inside
 * the decision's transaction, and a step woken before the commit finds no approval and waits for another hint.
 */
export async function resumeApprovedJobs(deps: JobServiceDeps, olderThanMs = 30 * 60_000): Promise<number> {
  let resumed = 0;
  for (const { jobId, decisionId, holdUntil } of await approvedButWaiting(deps.db, olderThanMs, 100)) {
    await deps.temporal.workflow
      .getHandle(temporalWorkflowId(jobId))
      .signal(approvalSignal, { kind: 'decided', approved: true, decisionId, ...(holdUntil && { holdUntil }) });
    deps.log.warn({ jobId, decisionId }, 'signalled an approval again: the registration was still waiting');
    resumed++;
  }
  return resumed;
}

/**
 * Runs parked by a build before the WaitingFor search attribute replay as if they had written it: each is asked to
 * write it (up to `max` a round). The signal is one only the new build takes: deploy its workers (made current)
 * before its API, as the README's deploy says. One whose first approval the store holds (four eyes) is told so, as
 * the decision tells the runs parked since. Returns how many were asked.
 */
export async function showWaitingForParked(deps: JobServiceDeps, max = 100): Promise<number> {
  const query = 'ExecutionStatus = "Running" AND JobStatus = "WAIT" AND WaitingFor IS NULL';
  const jobIds: string[] = [];
  for await (const wf of deps.temporal.workflow.list({ query, pageSize: max })) {
    jobIds.push(jobIdOfWorkflow(wf.workflowId));
    if (jobIds.length >= max) break;
  }
  if (jobIds.length === 0) return 0;
  const waiting = await waitingForOfJobs(deps.db, jobIds);
  for (const jobId of jobIds) {
    const handle = deps.temporal.workflow.getHandle(temporalWorkflowId(jobId));
    const job = waiting.get(jobId);
    if (job?.waitingFor === 'second-decision')
      await handle.signal(approvalSignal, {
        kind: 'first-approved',
        ...(job.partyState && { partyState: job.partyState }),
      });
    else await handle.signal(showWaitingForSignal);
  }
  deps.log.info({ runs: jobIds.length }, 'asked runs parked before WaitingFor to write it');
  return jobIds.length;
}

/** Runs startQueuedJobs and resumeApprovedJobs (indexed store reads) every `everyMs`. Returns a stop function. */
export function runQueuedJobSweeper(deps: JobServiceDeps, everyMs = 15_000): () => void {
  return runPeriodically(
    everyMs,
    async () => {
      const n = await startQueuedJobs(deps);
      if (n) deps.log.info({ started: n }, 'started queued jobs');
      await resumeApprovedJobs(deps);
    },
    (err) => deps.log.warn({ err }, 'queued-job sweep failed'),
  );
}
