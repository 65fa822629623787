// Jobs: one run of a workflow definition on an entry, recorded, started, found by the sweeper, their status set. How
// clients read them is in job-views.ts, their journal in job-journal.ts, their cancellation in job-cancellation.ts.
import crypto from 'node:crypto';
import type { JobWorkflowType } from '../../contract/workflow-types';
import { ACTS_ON_REGISTERED } from '../../contract/providers';
import type { Definition, Fault, JobStatus } from '../../contract/job';
import type { Queryable } from './db';
import { eventCtes } from './events';
import { RESERVED_IDS, idNotAvailable } from './entries';
import { ConflictError } from './conflict';
import { isUniqueViolation } from './rows';
import { getJob, view, type JobRow, type JobView } from './job-views';

/** An entry as deciding a job's start reads it (domain/jobs/job-start.ts). */
export interface JobStartEntry {
  id: string;
  docSchema: string;
  siren: string | null;
  /** The party's name as it states it (GOBL `name`). */
  name: string | null;
  /** What is wrong with the party it holds, kept with allow_invalid; null when valid. */
  draftFaults: Fault[] | null;
  state: string | null;
}

export interface JobStartFacts {
  /** Undefined when the workspace has no such entry. */
  entry?: JobStartEntry;
  /** The workspace's other entries with the entry's SIREN, when asked for (a registration). */
  sameSiren: { id: string; state: string | null }[];
}

/**
 * What deciding a job's start reads: the entry and, with `sameSiren`, the workspace's other entries of its SIREN,
 * their rows locked (FOR NO KEY UPDATE, in id order) until the caller's transaction ends, so that no change to the
 * party or to their states (a registration recorded) slips between the decision and the insert. Two registrations
 * of one SIREN recorded at once are told apart by the unique index jobs_one_registration_per_siren (jobConflict).
 */
export async function lockJobStartFacts(
  q: Queryable,
  at: { workspaceId: string; entryId: string; sameSiren: boolean },
): Promise<JobStartFacts> {
  const { rows } = await q.query<{
    id: string;
    doc_schema: string;
    siren: string | null;
    name: string | null;
    draft_faults: Fault[] | null;
    state: string | null;
  }>(
    `SELECT id, doc_schema, siren, data->>'name' AS name, draft_faults, state FROM entries
     WHERE workspace_id = $1
       AND (id = $2 OR ($3 AND siren = (SELECT siren FROM entries WHERE id = $2 AND workspace_id = $1)))
     ORDER BY id FOR NO KEY UPDATE`,
    [at.workspaceId, at.entryId, at.sameSiren],
  );
  const e = rows.find((r) => r.id === at.entryId);
  if (!e) return { sameSiren: [] };
  return {
    entry: {
      id: e.id,
      docSchema: e.doc_schema,
      siren: e.siren,
      name: e.name,
      draftFaults: e.draft_faults,
      state: e.state,
    },
    sameSiren: rows.filter((r) => r !== e && r.siren === e.siren).map((r) => ({ id: r.id, state: r.state })),
  };
}

export interface NewJob {
  id: string;
  workspaceId: string;
  key?: string;
  workflowId: string;
  workflowType: JobWorkflowType;
  entryId: string;
  definition: Definition;
  args: Record<string, string>;
  tags: string[];
  /** The SIREN the job registers (jobs_one_registration_per_siren), if it does. */
  registersSiren: string | null;
}

/**
 * Records a QUEUED job; the view returned is the job as accepted. An id reserved or taken is a ConflictError that
 * says so only when the job is the caller's workspace's own; the unique indexes' refusals are jobConflict's.
 */
export async function insertQueuedJob(q: Queryable, j: NewJob): Promise<JobView> {
  const { rows } = await q.query<JobRow>(
    `INSERT INTO jobs (id, workspace_id, key, workflow_id, silo_entry_id, definition, args, tags, status, workflow_type, registers_siren)
     SELECT $1, $2, $3, $4, $5, $6, $7, $8, 'QUEUED', $9, $10 WHERE NOT ($1::uuid = ANY ($11::uuid[]))
     ON CONFLICT (id) DO NOTHING
     RETURNING *`,
    [
      j.id,
      j.workspaceId,
      j.key ?? null,
      j.workflowId,
      j.entryId,
      JSON.stringify(j.definition),
      JSON.stringify(j.args),
      j.tags,
      j.workflowType,
      j.registersSiren,
      RESERVED_IDS,
    ],
  );
  const row = rows[0];
  if (row) return view({ ...row, intents: [], events: [] });
  // The id is reserved or taken: only the caller's own workspace may learn that a job has it.
  if (await getJob(q, j.workspaceId, j.id)) throw new ConflictError(`a job with id ${j.id} already exists`, 'id-taken');
  throw new ConflictError(idNotAvailable(j.id), 'id-not-available');
}

/**
 * The conflict a unique index answered an insertQueuedJob with, read after its transaction ended: the entry has a
 * job running, its SIREN is being registered, or the key is taken; undefined for any other error.
 */
export async function jobConflict(
  db: Queryable,
  err: unknown,
  j: Pick<NewJob, 'workspaceId' | 'entryId' | 'key'>,
): Promise<ConflictError | undefined> {
  if (!isUniqueViolation(err)) return undefined;
  const constraint = (err as { constraint?: string }).constraint;
  if (constraint === 'jobs_one_active_per_entry') {
    const running = await activeJobOf(db, j.entryId);
    const which = running ? `job ${running.id} (${running.status})` : 'a job';
    const cancel = running ? ` (POST /transform/v1/jobs/${running.id}/cancel)` : '';
    return new ConflictError(
      `entry ${j.entryId} already has ${which} running: wait for it to end, or cancel it${cancel}`,
      'job-running',
    );
  }
  if (constraint === 'jobs_one_registration_per_siren') return registrationRunning(db, j.workspaceId, j.entryId);
  return new ConflictError(`a job with key "${j.key}" already exists`, 'key-taken');
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

/** The jobs' workflows have started: QUEUED no more (the sweeper would start them again). One statement for all. */
export async function markJobsStarted(db: Queryable, jobIds: string[]): Promise<void> {
  await db.query(
    `UPDATE jobs SET status = 'RUN', updated_at = now() WHERE id = ANY($1::uuid[]) AND status = 'QUEUED'`,
    [jobIds],
  );
}

/** Jobs still waiting long after an approval was recorded for them (its signal lost), oldest first. */
export async function approvedButWaiting(db: Queryable, olderThanMs: number, limit: number) {
  // An automatic approval counts from the end of its overturn window: the registration waits through it.
  const { rows } = await db.query<{ id: string; decision_id: string; hold_until: Date | null }>(
    `SELECT j.id, d.id AS decision_id, d.hold_until FROM jobs j
     JOIN mandates a ON a.job_id = j.id JOIN approval_decisions d ON d.id = a.decision_id
     WHERE j.status = 'WAIT' AND d.approved
       AND COALESCE(d.hold_until, d.created_at) < now() - ($1::int * interval '1 millisecond')
     ORDER BY d.created_at LIMIT $2`,
    [olderThanMs, limit],
  );
  return rows.map((r) => ({
    jobId: r.id,
    decisionId: r.decision_id,
    ...(r.hold_until && { holdUntil: r.hold_until.toISOString() }),
  }));
}

/** Jobs recorded but not yet picked up by a workflow run, oldest first. */
export async function queuedJobs(db: Queryable, olderThanMs: number, limit: number) {
  const { rows } = await db.query<{
    id: string;
    workspace_id: string;
    silo_entry_id: string;
    siren: string | null;
    name: string | null;
    definition: Definition;
    workflow_type: JobWorkflowType; // of a queued job: set by insertQueuedJob (migration 1763840800000 for older rows)
    workflow_id: string;
    args: Record<string, string>;
    key: string | null;
  }>(
    `SELECT j.id, j.workspace_id, j.silo_entry_id, e.siren, e.data->>'name' AS name, j.definition, j.workflow_type, j.workflow_id, j.args, j.key FROM jobs j JOIN entries e ON e.id = j.silo_entry_id
     WHERE j.status = 'QUEUED' AND j.created_at < now() - ($1::int * interval '1 millisecond')
     ORDER BY j.created_at LIMIT $2`,
    [olderThanMs, limit],
  );
  return rows.map((r) => ({
    jobId: r.id,
    workspaceId: r.workspace_id,
    entryId: r.silo_entry_id,
    siren: r.siren,
    name: r.name,
    definition: r.definition,
    workflowType: r.workflow_type,
    workflowId: r.workflow_id,
    args: r.args ?? {},
    key: r.key,
  }));
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
