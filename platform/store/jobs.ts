// Long file: jobs, intents and their events together; issue 42 splits the store by table (the journal among them).
// Jobs: one run of a workflow definition on an entry, with its intents (one per step run) and their events.
import crypto from 'node:crypto';
import type { JobWorkflowType } from '../../contract/workflow-types';
import { ACTS_ON_REGISTERED } from '../../contract/providers';
import { CANCELLED, type Definition, type Fault, type JobStatus } from '../../contract/job';
import type { Db, Queryable } from './db';
import { waitingForSql, type WaitingFor } from './waiting-for';
import { eventCtes } from './events';
import { ConflictError, RESERVED_IDS, idNotAvailable, recordState } from './entries';
import { afterTimeCursor, cursorMicros, decodeTimeCursor, encodeTimeCursor, iso, isUniqueViolation } from './rows';

interface JobRow {
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

export type InsertJobResult =
  | { outcome: 'no-entry' }
  | { outcome: 'wrong-schema'; schema: string }
  | { outcome: 'siren-registered'; siren: string; entryId: string }
  | { outcome: 'invalid-data'; faults: Array<{ message: string }> }
  | { outcome: 'not-registered'; state: string | null }
  | { outcome: 'inserted'; job: JobView; siren: string | null };

/**
 * Records a QUEUED job on the workspace's entry if that entry processes `docSchema` documents: the check and the
 * insert are one statement (one round trip on the API's busiest write). The view returned is the job as accepted.
 * An id already taken is a ConflictError that says so only when the job is the caller's workspace's own.
 * A job that `registers` its entry's SIREN is refused while an entry of the workspace has it registered, and (by a
 * unique index) while another such job of that SIREN runs.
 */
export async function insertJob(
  db: Queryable,
  j: {
    id: string;
    workspaceId: string;
    key?: string;
    workflowId: string;
    workflowType: JobWorkflowType;
    entryId: string;
    docSchema: string;
    definition: Definition;
    args: Record<string, string>;
    tags: string[];
    registers: boolean;
    /** an unregistration: refused on an entry that has nothing to undo (never registered, void, cancelled) */
    unregisters?: boolean;
  },
): Promise<InsertJobResult> {
  type Row = {
    entry_schema: string;
    entry_siren: string | null;
    registered_entry: string | null;
    entry_faults: Fault[];
    entry_invalid: boolean;
    entry_state: string | null;
    nothing_to_undo: boolean;
  } & Partial<JobRow>;
  let row: Row | undefined;
  try {
    const { rows } = await db.query<Row>(
      `WITH entry AS (
         SELECT id, doc_schema, siren, draft_faults AS faults, state, $12 AND draft_faults IS NOT NULL AS invalid,
           $13 AND (state IS NULL OR state IN ('void', 'cancelled')) AS nothing_to_undo
         FROM entries WHERE id = $5 AND workspace_id = $2
       ),
       registered AS (
         SELECT e.id FROM entries e JOIN entry ON e.siren = entry.siren
         WHERE $12 AND e.workspace_id = $2 AND e.state = 'registered' ORDER BY e.id = entry.id DESC LIMIT 1
       ),
       job AS (
         INSERT INTO jobs (id, workspace_id, key, workflow_id, silo_entry_id, definition, args, tags, status, workflow_type, registers_siren)
         SELECT $1, $2, $3, $4, entry.id, $6, $7, $8, 'QUEUED', $11, CASE WHEN $12 THEN entry.siren END FROM entry
         WHERE entry.doc_schema = $9 AND NOT ($1::uuid = ANY ($10::uuid[])) AND NOT EXISTS (SELECT 1 FROM registered) AND NOT entry.invalid AND NOT entry.nothing_to_undo
         ON CONFLICT (id) DO NOTHING
         RETURNING *
       )
       SELECT entry.doc_schema AS entry_schema, entry.siren AS entry_siren, entry.faults AS entry_faults, entry.invalid AS entry_invalid,
         entry.state AS entry_state, entry.nothing_to_undo,
         (SELECT id FROM registered) AS registered_entry, job.*
       FROM entry LEFT JOIN job ON true`,
      [
        j.id,
        j.workspaceId,
        j.key ?? null,
        j.workflowId,
        j.entryId,
        JSON.stringify(j.definition),
        JSON.stringify(j.args),
        j.tags,
        j.docSchema,
        RESERVED_IDS,
        j.workflowType,
        j.registers,
        j.unregisters === true,
      ],
    );
    row = rows[0];
  } catch (err) {
    if (isUniqueViolation(err)) {
      const constraint = (err as { constraint?: string }).constraint;
      if (constraint === 'jobs_one_active_per_entry') {
        throw new ConflictError(
          `entry ${j.entryId} already has a job running: wait for it to end, or cancel it`,
          'job-running',
        );
      }
      if (constraint === 'jobs_one_registration_per_siren')
        throw await registrationRunning(db, j.workspaceId, j.entryId);
      throw new ConflictError(`a job with key "${j.key}" already exists`, 'key-taken');
    }
    throw err;
  }
  if (!row) return { outcome: 'no-entry' };
  if (row.entry_schema !== j.docSchema) return { outcome: 'wrong-schema', schema: row.entry_schema };
  if (row.registered_entry)
    return { outcome: 'siren-registered', siren: row.entry_siren!, entryId: row.registered_entry };
  if (row.entry_invalid) return { outcome: 'invalid-data', faults: row.entry_faults };
  if (row.nothing_to_undo) return { outcome: 'not-registered', state: row.entry_state };
  if (!row.id) {
    // The id is reserved or taken: only the caller's own workspace may learn that a job has it.
    if (await getJob(db, j.workspaceId, j.id))
      throw new ConflictError(`a job with id ${j.id} already exists`, 'id-taken');
    throw new ConflictError(idNotAvailable(j.id), 'id-not-available');
  }
  return { outcome: 'inserted', job: view({ ...(row as JobRow), intents: [], events: [] }), siren: row.entry_siren };
}

/** The conflict of a registration refused because another entry's registration of the same SIREN is running. */
async function registrationRunning(db: Queryable, workspaceId: string, entryId: string): Promise<ConflictError> {
  const { rows } = await db.query<{ siren: string; job_id: string; entry_id: string }>(
    `SELECT j.registers_siren AS siren, j.id AS job_id, j.silo_entry_id AS entry_id FROM jobs j
     WHERE j.workspace_id = $1 AND j.completed_at IS NULL
       AND j.registers_siren = (SELECT siren FROM entries WHERE id = $2 AND workspace_id = $1)`,
    [workspaceId, entryId],
  );
  const r = rows[0];
  return new ConflictError(
    r
      ? `SIREN ${r.siren} is already being registered by job ${r.job_id} on entry ${r.entry_id}: wait for it to end`
      : 'a registration of this SIREN was running: try again',
    'registration-running',
  );
}

/** The job's workflow has started: QUEUED no more (the sweeper would start it again). */
export async function markJobStarted(db: Queryable, jobId: string): Promise<void> {
  await db.query(`UPDATE jobs SET status = 'RUN', updated_at = now() WHERE id = $1 AND status = 'QUEUED'`, [jobId]);
}

/** Jobs still waiting long after an approval was recorded for them (its signal lost), oldest first. */
export async function approvedButWaiting(db: Queryable, olderThanMs: number, limit: number) {
  const { rows } = await db.query<{ id: string; decision_id: string }>(
    `SELECT j.id, d.id AS decision_id FROM jobs j
     JOIN agreements a ON a.job_id = j.id JOIN approval_decisions d ON d.id = a.decision_id
     WHERE j.status = 'WAIT' AND d.approved
       AND d.created_at < now() - ($1::int * interval '1 millisecond')
     ORDER BY d.created_at LIMIT $2`,
    [olderThanMs, limit],
  );
  return rows.map((r) => ({ jobId: r.id, decisionId: r.decision_id }));
}

/** Jobs recorded but not yet picked up by a workflow run, oldest first. */
export async function queuedJobs(db: Queryable, olderThanMs: number, limit: number) {
  const { rows } = await db.query<{
    id: string;
    workspace_id: string;
    silo_entry_id: string;
    siren: string | null;
    definition: Definition;
    workflow_type: JobWorkflowType; // of a queued job: set by insertJob (migration 1763840800000 for older rows)
    workflow_id: string;
    args: Record<string, string>;
  }>(
    `SELECT j.id, j.workspace_id, j.silo_entry_id, e.siren, j.definition, j.workflow_type, j.workflow_id, j.args FROM jobs j JOIN entries e ON e.id = j.silo_entry_id
     WHERE j.status = 'QUEUED' AND j.created_at < now() - ($1::int * interval '1 millisecond')
     ORDER BY j.created_at LIMIT $2`,
    [olderThanMs, limit],
  );
  return rows.map((r) => ({
    jobId: r.id,
    workspaceId: r.workspace_id,
    entryId: r.silo_entry_id,
    siren: r.siren,
    definition: r.definition,
    workflowType: r.workflow_type,
    workflowId: r.workflow_id,
    args: r.args ?? {},
  }));
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

function view(job: JobRow & { intents: Json<IntentRow>[]; events: Json<EventRow>[]; waiting_for?: WaitingFor | null }) {
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

/**
 * SQL for the CTEs `job` (its status set, unless it has ended already) and, the first time it ends (OK, ERR, CANCEL), its
 * `job.completed` event with the faults it ended with. Parameters from `$first`: jobStatusParams. The update also
 * needs `guard`; a null status changes nothing. `statusSql`: the status as an SQL expression (default: its parameter).
 */
export function jobStatusCtes(first: number, guard = 'true', statusSql = `$${first + 1}::text`): string {
  const [job, faults] = [first, first + 2].map((n) => `$${n}`);
  const status = `(${statusSql})`;
  return `job AS (
       UPDATE jobs SET status = ${status}::text, faults = COALESCE(${faults}::jsonb, faults), updated_at = now(),
         waits_until = CASE WHEN ${status}::text = 'WAIT' THEN $${first + 6}::date END,
         completed_at = CASE WHEN ${status}::text IN ('OK', 'ERR', 'CANCEL') THEN COALESCE(completed_at, now()) ELSE completed_at END
       WHERE id = ${job}::uuid AND ${status}::text IS NOT NULL AND completed_at IS NULL AND ${guard}
       RETURNING silo_entry_id, status, faults, completed_at IS NOT NULL AS ended
     ), ended AS (
       SELECT e.id, e.workspace_id, job.status, job.faults FROM job JOIN entries e ON e.id = job.silo_entry_id WHERE job.ended
     ), ${eventCtes('ended', first + 3, `jsonb_build_object('entry_id', ended.id, 'job_id', ${job}::uuid, 'status', ended.status, 'faults', ended.faults)`)}`;
}

/**
 * The parameters of jobStatusCtes: the job, its new status (none: no change) and faults, and for a WAIT until a day
 * (not the approval's), that day.
 */
export function jobStatusParams(
  jobId: string,
  change?: { status?: JobStatus; faults?: Fault[]; until?: string },
): unknown[] {
  return [
    jobId,
    change?.status ?? null,
    change?.faults ? JSON.stringify(change.faults) : null,
    crypto.randomUUID(),
    'job.completed',
    jobId,
    change?.until ?? null,
  ];
}

/** Sets a job's status; the first time it ends (OK, ERR, CANCEL), its `job.completed` event too. One statement. */
export async function setJobStatus(db: Queryable, jobId: string, status: JobStatus, faults?: Fault[]): Promise<void> {
  await db.query(`WITH ${jobStatusCtes(1)} SELECT 1`, jobStatusParams(jobId, { status, faults }));
}

/** The entry's running job (the one a confirmation or a decision resumes), newest first. */
export async function activeJobOf(db: Queryable, entryId: string) {
  const { rows } = await db.query<{ id: string; status: JobStatus; workflow_type: string; definition: Definition }>(
    `SELECT id, status, workflow_type, definition FROM jobs WHERE silo_entry_id = $1 AND status IN ('QUEUED', 'RUN', 'WAIT')
     ORDER BY created_at DESC LIMIT 1`,
    [entryId],
  );
  const r = rows[0];
  return r && { id: r.id, status: r.status, workflowType: r.workflow_type, definition: r.definition };
}

/** Why the job is being cancelled, set by the API before it asks the workflow; the cancel activity reads it. */
export async function setCancelReason(db: Queryable, jobId: string, reason: string): Promise<void> {
  // The first reason stays: of callers cancelling at once, the first is the one the workflow takes.
  await db.query('UPDATE jobs SET cancel_reason = COALESCE(cancel_reason, $2) WHERE id = $1 AND completed_at IS NULL', [
    jobId,
    reason,
  ]);
}

/**
 * Claims a job's cancellation in the store, against the operator's approval: the job's row locked (as
 * lockJobForDecision locks it), then, unless an approval of its submission is recorded, its reason set (the first
 * stays). Of a cancellation and an approval racing, the one whose transaction takes the row first wins; the other,
 * reading after it, sees it. `approvedBy`: the approval's decision id when one came first (nothing was written).
 */
export async function claimCancellation(db: Db, jobId: string, reason: string): Promise<{ approvedBy?: string }> {
  return db.tx(async (q) => {
    await q.query('SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE', [jobId]);
    // A statement of its own, after the lock: it reads what a decision that held the row committed.
    const { rows } = await q.query<{ id: string }>(
      `SELECT d.id FROM agreements a JOIN approval_decisions d ON d.id = a.decision_id
       WHERE a.job_id = $1 AND a.voided_at IS NULL AND d.approved`,
      [jobId],
    );
    if (rows[0]) return { approvedBy: rows[0].id };
    await setCancelReason(q, jobId, reason);
    return {};
  });
}

/**
 * Locks a job's row for an approval decision (see claimCancellation) until the transaction ends; returns whether a
 * cancellation of it has been asked (its reason, set by the API before the workflow takes it).
 */
export async function lockJobForDecision(q: Queryable, jobId: string): Promise<{ cancelReason: string | null }> {
  const { rows } = await q.query<{ cancel_reason: string | null }>(
    'SELECT cancel_reason FROM jobs WHERE id = $1 FOR UPDATE',
    [jobId],
  );
  return { cancelReason: rows[0]?.cancel_reason ?? null };
}

/** The workflow refused the cancellation: the job goes on, without the reason this caller set. */
export async function clearCancelReason(db: Queryable, jobId: string, reason: string): Promise<void> {
  await db.query('UPDATE jobs SET cancel_reason = NULL WHERE id = $1 AND cancel_reason = $2 AND completed_at IS NULL', [
    jobId,
    reason,
  ]);
}

/**
 * Cancels a job whose workflow never started (still QUEUED): the job ends CANCEL with its reason, the party is
 * `cancelled`. False when it is no longer QUEUED.
 */
export async function cancelQueuedJob(db: Db, jobId: string): Promise<boolean> {
  return db.tx(async (q) => {
    const { rows } = await q.query<{ silo_entry_id: string; cancel_reason: string | null }>(
      `SELECT silo_entry_id, cancel_reason FROM jobs WHERE id = $1 AND status = 'QUEUED' FOR UPDATE`,
      [jobId],
    );
    const job = rows[0];
    if (!job) return false;
    const faults = [
      { provider: 'transform', code: CANCELLED, message: job.cancel_reason ?? 'cancelled through the API' },
    ];
    await q.query(`WITH ${jobStatusCtes(1)} SELECT 1`, jobStatusParams(jobId, { status: 'CANCEL', faults }));
    await recordState(q, { entryId: job.silo_entry_id, state: 'cancelled', jobId, stepId: 'queued' });
    return true;
  });
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

/**
 * Whether the job's definition acts on a registered party's directory lines (an unregistration, an address update):
 * cancelled before acting, it leaves the party registered.
 */
export async function jobActsOnRegistered(q: Queryable, jobId: string): Promise<boolean> {
  const { rows } = await q.query<{ acts: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM jobs, jsonb_array_elements(definition->'steps') s
                    WHERE jobs.id = $1 AND s->>'provider' = ANY($2::text[])) AS acts`,
    [jobId, ACTS_ON_REGISTERED],
  );
  return rows[0]?.acts === true;
}

/** The reason given with a cancellation request, if any. */

export async function cancelReasonOf(q: Queryable, jobId: string): Promise<string | null> {
  const { rows } = await q.query<{ cancel_reason: string | null }>('SELECT cancel_reason FROM jobs WHERE id = $1', [
    jobId,
  ]);
  return rows[0]?.cancel_reason ?? null;
}
