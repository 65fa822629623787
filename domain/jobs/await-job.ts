// `?wait=N` on job creation: the answer waits until the job ends or parks, or N seconds pass. Polled from the
// store (an indexed read, at most one a second per waiting request): the store is where a job's status is written.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../../platform/store/db';
import { getJobStatus } from '../../platform/store/job-views';

const SETTLED = new Set(['OK', 'ERR', 'CANCEL', 'WAIT']);

/** Resolves when the job has settled or `seconds` have passed, or at once when `signal` aborts (the caller left). */
export async function awaitJobSettled(
  db: Db,
  workspaceId: string,
  jobId: string,
  seconds: number,
  signal: AbortSignal,
): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
    const status = await getJobStatus(db, workspaceId, jobId);
    const left = deadline - Date.now();
    if (!status || SETTLED.has(status) || left <= 0 || signal.aborted) return;
    await sleep(Math.min(delay, left), undefined, { signal }).catch(() => undefined);
  }
}
