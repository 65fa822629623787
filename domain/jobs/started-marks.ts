// The jobs whose workflow the API has just started, marked RUN together: under bulk onboarding, one statement for
// the jobs started in the same half second rather than one each. Nothing waits for a mark: the caller was answered
// QUEUED, and a mark lost with its process is the sweeper's (jobs.ts startQueuedJobs, after 10 s, finds the workflow
// started and marks the job).
import type { Logger } from 'pino';
import type { Db } from '../../platform/store/db';
import { markJobsStarted } from '../../platform/store/jobs';

const BATCH_MS = 500;
const MAX_BATCH = 500;

class StartedMarks {
  private pending: string[] = [];
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
  ) {}

  add(jobId: string): void {
    this.pending.push(jobId);
    if (this.pending.length >= MAX_BATCH) this.flush();
    // Unref'd: a process stopping does not wait for it (see above).
    else this.timer ??= setTimeout(() => this.flush(), BATCH_MS).unref();
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const jobIds = this.pending;
    this.pending = [];
    markJobsStarted(this.db, jobIds).catch((err) =>
      this.log.warn({ jobs: jobIds.length, err }, 'could not mark started jobs RUN; the sweeper will'),
    );
  }
}

const marks = new WeakMap<Db, StartedMarks>();

/** Marks the job RUN within half a second, with the others started meanwhile. */
export function markStarted(db: Db, log: Logger, jobId: string): void {
  let m = marks.get(db);
  if (!m) marks.set(db, (m = new StartedMarks(db, log)));
  m.add(jobId);
}
