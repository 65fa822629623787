// Jobs as clients read them: one job with its intents (one per step run) and their events, in one statement (clients
// poll it), the workspace's jobs a page at a time, the count by status.
import type { Definition, Fault, JobStatus } from '../../contract/job';
import type { Queryable } from './db';
import { waitingForSql, type WaitingFor } from './waiting-for';
import { afterTimeCursor, cursorMicros, decodeTimeCursor, encodeTimeCursor, iso } from './rows';

export interface JobRow {
  id: string;
  workspace_id: string;
  key: string | null;
  workflow_id: string;
  silo_entry_id: string;
  definition: Definition;
  args: Record<string, string>;
  tags: string[];
  status: JobStatus;
  faults: Fault[];
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  /** The day a job in WAIT waits for (its changes take effect then), as YYYY-MM-DD. */
  waits_until: string | null;
}

interface IntentRow {
  step_id: string;
  name: string;
  provider: string;
  completed: boolean;
  created_at: Date;
  updated_at: Date;
}

interface EventRow {
  step_id: string;
  idx: number;
  status: string;
  code: string | null;
  message: string | null;
  at: Date;
}

/**
 * The job with its intents and their events, read in one statement (clients poll this). Events are numbered across
 * the job in step order: each step numbers its own (platform/store/job-journal.ts).
 */
const JOB_VIEW_SQL = (where: string, extra = '') => `
  SELECT j.*${extra}, ${waitingForSql('j')} AS waiting_for, to_char(j.waits_until, 'YYYY-MM-DD') AS waits_until,
    COALESCE((SELECT json_agg(i ORDER BY i.position, i.created_at)
              FROM (SELECT step_id, name, provider, completed, created_at, updated_at, position FROM job_intents WHERE job_id = j.id) i), '[]') AS intents,
    COALESCE((SELECT json_agg(e ORDER BY e.idx)
              FROM (SELECT e.step_id, row_number() OVER (ORDER BY i.position, e.idx) - 1 AS idx, e.status, e.code, e.message, e.at
                    FROM job_events e JOIN job_intents i USING (job_id, step_id) WHERE e.job_id = j.id) e), '[]') AS events
  FROM jobs j WHERE ${where}`;

/** Timestamps arrive as JSON strings from the aggregates; iso() reads both. */
type Json<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] };

export function view(
  job: JobRow & { intents: Json<IntentRow>[]; events: Json<EventRow>[]; waiting_for?: WaitingFor | null },
) {
  return {
    id: job.id,
    ...(job.key != null && { key: job.key }),
    workflow_id: job.workflow_id,
    silo_entry_id: job.silo_entry_id,
    status: job.status,
    ...(job.waiting_for && { waiting_for: job.waiting_for }),
    ...(job.waiting_for === 'effective-date' && job.waits_until && { effective_on: job.waits_until }),
    args: job.args,
    tags: job.tags,
    faults: job.faults,
    intents: job.intents.map((i) => ({
      step_id: i.step_id,
      name: i.name,
      provider: i.provider,
      completed: i.completed,
      events: job.events
        .filter((e) => e.step_id === i.step_id)
        .map((e) => ({
          index: e.idx,
          status: e.status,
          at: iso(e.at),
          ...(e.code != null && { code: e.code }),
          ...(e.message != null && { message: e.message }),
        })),
      created_at: iso(i.created_at),
      updated_at: iso(i.updated_at),
    })),
    created_at: iso(job.created_at),
    updated_at: iso(job.updated_at),
    ...(job.completed_at && { completed_at: iso(job.completed_at) }),
  };
}

export type JobView = ReturnType<typeof view>;

type ViewRow = Parameters<typeof view>[0];

export async function getJob(db: Queryable, workspaceId: string, id: string): Promise<JobView | undefined> {
  const { rows } = await db.query<ViewRow>(JOB_VIEW_SQL('j.id = $1 AND j.workspace_id = $2'), [id, workspaceId]);
  return rows[0] && view(rows[0]);
}

export async function getJobStatus(db: Queryable, workspaceId: string, id: string): Promise<JobStatus | undefined> {
  const { rows } = await db.query<{ status: JobStatus }>(
    'SELECT status FROM jobs WHERE id = $1 AND workspace_id = $2',
    [id, workspaceId],
  );
  return rows[0]?.status;
}

export async function getJobByKey(db: Queryable, workspaceId: string, key: string): Promise<JobView | undefined> {
  const { rows } = await db.query<ViewRow>(JOB_VIEW_SQL('j.key = $1 AND j.workspace_id = $2'), [key, workspaceId]);
  return rows[0] && view(rows[0]);
}

/** Filters of the jobs list; the page is newest first, after `cursor` (from a previous page). */
export interface JobFilter {
  limit: number;
  cursor?: string;
  entryId?: string;
  status?: JobStatus;
  workflowId?: string;
  /** jobs created at or before this time */
  createdAt?: string;
  /** jobs in WAIT for this */
  waitingFor?: WaitingFor;
}

export async function listJobs(
  db: Queryable,
  workspaceId: string,
  f: JobFilter,
): Promise<{ list: JobView[]; next_cursor?: string }> {
  const params: unknown[] = [workspaceId, f.limit + 1];
  const where = ['j.workspace_id = $1'];
  const add = (sql: (n: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (f.entryId) add((n) => `j.silo_entry_id = ${n}::uuid`, f.entryId);
  if (f.status) add((n) => `j.status = ${n}`, f.status);
  if (f.workflowId) add((n) => `j.workflow_id = ${n}::uuid`, f.workflowId);
  if (f.createdAt) add((n) => `j.created_at <= ${n}::timestamptz`, f.createdAt);
  if (f.waitingFor) add((n) => `j.status = 'WAIT' AND ${waitingForSql('j')} = ${n}`, f.waitingFor);
  const after = f.cursor ? decodeTimeCursor(f.cursor) : undefined;
  if (after) {
    params.push(after.micros, after.id);
    where.push(afterTimeCursor('j.created_at', 'j.id', `$${params.length - 1}`, `$${params.length}`));
  }
  const { rows } = await db.query<ViewRow & { micros: string }>(
    `${JOB_VIEW_SQL(where.join(' AND '), `, ${cursorMicros('j.created_at')} AS micros`)} ORDER BY j.created_at DESC, j.id DESC LIMIT $2`,
    params,
  );
  const page = rows.slice(0, f.limit);
  const last = page.at(-1);
  return {
    list: page.map(view),
    ...(rows.length > f.limit && last && { next_cursor: encodeTimeCursor(last.micros, last.id) }),
  };
}

/** How many jobs the store holds in each status (the `jobs` metric). */
export async function countJobsByStatus(db: Queryable): Promise<{ status: string; n: number }[]> {
  const { rows } = await db.query<{ status: string; n: string }>(
    'SELECT status, count(*) AS n FROM jobs GROUP BY status',
  );
  return rows.map((r) => ({ status: r.status, n: Number(r.n) }));
}
