// A job's journal as its steps write it: each step's activity records its intent and events with its effect, and
// the API records the approval wait's events with the submission and the decision.
import type { Fault } from '../../contract/job';
import type { JobStatusChange, JournalLine } from '../../contract/journal';
import { PROVIDERS } from '../../contract/providers';
import type { Queryable } from './db';
import { checkAllowed, requiredBy, type StatementEffect } from './statement-effect';
import { jobStatusCtes, jobStatusParams } from './jobs';

/**
 * Event slots within a step: its start event first, its end event (OK or KO) last, the approval wait's events in
 * between. A slot is written once, so a retried write is a no-op and a step ends only once.
 */
const START_SLOT = 0;
const END_SLOT = 1_000_000;

/** Thrown when a step requiring an approved decision finds none recorded (the signal that woke it was forged). */
export class NoApprovalRecorded extends Error {}

/**
 * What a step's activity asks the journal to record, by the step's id: the store derives the lines and the job's
 * status from the job's definition. At its start: the step's start (and the end of an approval wait before it, which
 * needs an approved decision recorded). At its end: the step's end too, the start of an approval wait after it (WAIT),
 * the job's end after the last step (OK, or ERR after the last rescue step). A job waiting (a day, an approval) runs
 * again (RUN) with the step's first write.
 */
export interface StepWrite {
  step: string;
  at: 'start' | 'end';
  /** On the step's end line: what the job should know of it (a directory line taking effect later). */
  note?: string;
  /** The approval wait after the step is not needed: recorded started and ended with this message, no WAIT. */
  waive?: string;
}

/** What one journal write records beside a step's derived lines: lines and a status the store cannot derive. */
export interface JournalWrite {
  /** Lines the workflow owes (a failed step's, a cancelled one's, a wait begun without a step before it). */
  lines?: JournalLine[];
  status?: JobStatusChange;
  /** Writes nothing unless an approved decision is recorded for the job (the end of an approval wait is owed). */
  requiresApproval?: boolean;
  step?: StepWrite;
  /** The job's faults so far (the rescue's): the job ends with them. */
  faults?: Fault[];
}

/**
 * SQL for the CTE `def`: the steps of job `$1`'s definition, rescue steps after the others, with their positions
 * and configs (`main`: not a rescue step).
 */
const DEFINITION_STEPS = `def AS (
       SELECT s->>'id' AS step_id, (o - 1)::int AS position, s->>'name' AS name, s->>'provider' AS provider,
         COALESCE(s->'config', '{}'::jsonb) AS config, o <= jsonb_array_length(jobs.definition->'steps') AS main
       FROM jobs, jsonb_array_elements((jobs.definition->'steps') || (jobs.definition->'rescue')) WITH ORDINALITY AS d(s, o)
       WHERE jobs.id = $1
     )`;

/**
 * The CTEs deriving a step's lines and status: `step` (the one whose id is $4, none when null), the step after it,
 * the approval wait before it whose end is not recorded, the one after it (at its end, $5), and the job's status.
 */
const STEP_CTES = `step AS (
       SELECT * FROM def WHERE step_id = $4
     ), after AS (
       SELECT d.* FROM def d JOIN step ON d.main = step.main AND d.position = step.position + 1
     ), wait_before AS (
       SELECT d.step_id FROM def d JOIN step ON d.main = step.main AND d.position = step.position - 1
       WHERE d.provider = ANY($8::text[])
         AND NOT EXISTS (SELECT 1 FROM job_events e WHERE e.job_id = $1 AND e.step_id = d.step_id AND e.idx = ${END_SLOT})
     ), wait_after AS (
       SELECT step_id FROM after WHERE $5 = 'end' AND provider = ANY($8::text[])
     ), derived_status AS (
       SELECT CASE
         WHEN $5 = 'end' AND NOT EXISTS (SELECT 1 FROM after) THEN CASE WHEN step.main THEN 'OK' ELSE 'ERR' END
         WHEN $7::text IS NULL AND EXISTS (SELECT 1 FROM wait_after) THEN 'WAIT'
         WHEN (SELECT status FROM jobs WHERE id = $1) = 'WAIT' THEN 'RUN'
       END AS status FROM step
     )`;

/** The step's derived lines, as rows of the `line` CTE's columns. */
const STEP_LINES = `SELECT step_id, true, ${END_SLOT}, 'OK', NULL, NULL FROM wait_before
       UNION ALL SELECT step_id, false, ${START_SLOT}, 'RUN', NULL, NULL FROM step
       UNION ALL SELECT step_id, true, ${END_SLOT}, 'OK', NULL, $6::text FROM step WHERE $5 = 'end'
       UNION ALL SELECT step_id, false, ${START_SLOT}, 'RUN', NULL, NULL FROM wait_after
       UNION ALL SELECT step_id, true, ${END_SLOT}, 'OK', NULL, $7::text FROM wait_after WHERE $7::text IS NOT NULL`;

/** The approval wait providers (contract/providers.ts): a step after one needs the approval recorded. */
const WAIT_PROVIDERS = Object.entries(PROVIDERS)
  .filter(([, spec]) => spec.kind === 'approval-wait')
  .map(([id]) => id);

/** What a journal write returns: the effect's result, and the step's config from the job's definition. */
export interface Written {
  effect: unknown;
  config: Record<string, unknown>;
}

/**
 * Writes the lines (intents created as needed, events in their slots), the job's status and the step's `effect` if
 * any, in one statement; returns the effect's result and the step's config. Writes nothing and throws
 * NoApprovalRecorded when an approval is required and the job has no approved decision, EffectRefused when the
 * effect's requirement fails, an Error when the job has no such step. The effect's SQL may read the step's
 * definition in the CTE `step` (statement-effect.ts stepConfig).
 */
export async function writeJournal(
  q: Queryable,
  jobId: string,
  j: JournalWrite,
  effect?: StatementEffect,
): Promise<Written> {
  const lines = (j.lines ?? []).map((l) => ({
    step_id: l.step,
    completed: l.at === 'end',
    idx: l.at === 'end' ? END_SLOT : START_SLOT,
    status: l.status,
    code: l.code ?? null,
    message: l.message ?? null,
  }));
  // One statement: the guard, the intents, the events and the job's status together (foreign keys are checked at
  // its end). A step missing from the definition has no name: the insert fails rather than lose the line.
  const status = jobStatusParams(jobId, { ...j.status, ...(j.faults && { faults: j.faults }) });
  const firstOfStatus = 9;
  const firstOfEffect = firstOfStatus + status.length;
  const guard = '(SELECT ok AND allowed AND known FROM approved)';
  const derived = `COALESCE($${firstOfStatus + 1}::text, (SELECT status FROM derived_status))`;
  const { rows } = await q.query<{
    approved: boolean;
    allowed: boolean;
    known: boolean;
    effect: unknown;
    config: Written['config'];
  }>(
    `WITH ${DEFINITION_STEPS}, ${STEP_CTES}, approved AS (
       SELECT NOT ($3::boolean OR EXISTS (SELECT 1 FROM wait_before)) OR EXISTS (
         SELECT 1 FROM jobs j JOIN mandates a ON a.entry_id = j.silo_entry_id AND a.job_id = j.id
         JOIN approval_decisions d ON d.id = a.decision_id WHERE j.id = $1 AND d.approved) AS ok,
         ${effect ? requiredBy(effect, firstOfEffect) : 'true'} AS allowed,
         $4::text IS NULL OR EXISTS (SELECT 1 FROM step) AS known
     ), line AS (
       SELECT l.*, def.position, def.name, def.provider
       FROM (
         SELECT * FROM jsonb_to_recordset($2::jsonb) AS l(step_id text, completed boolean, idx int, status text, code text, message text)
         UNION ALL ${STEP_LINES}
       ) AS l LEFT JOIN def USING (step_id), approved WHERE approved.ok AND approved.allowed AND approved.known
     ), intent AS (
       INSERT INTO job_intents (job_id, step_id, position, name, provider, completed)
       SELECT DISTINCT ON (step_id) $1, step_id, position, name, provider, completed FROM line ORDER BY step_id, completed DESC
       ON CONFLICT (job_id, step_id) DO UPDATE SET completed = job_intents.completed OR EXCLUDED.completed, updated_at = now()
     ), step_event AS (
       INSERT INTO job_events (job_id, step_id, idx, status, code, message)
       SELECT $1, step_id, idx, status, code, message FROM line ON CONFLICT DO NOTHING
     ), ${jobStatusCtes(firstOfStatus, guard, derived)}${effect ? `, ${effect.ctes(firstOfEffect, guard)}` : ''}
     SELECT ok AS approved, allowed, known, (SELECT config FROM step) AS config${effect ? `, ${effect.result} AS effect` : ''} FROM approved`,
    [
      jobId,
      JSON.stringify(lines),
      j.requiresApproval === true,
      j.step?.step ?? null,
      j.step?.at ?? null,
      j.step?.note ?? null,
      j.step?.waive ?? null,
      WAIT_PROVIDERS,
      ...status,
      ...(effect?.params ?? []),
    ],
  );
  if (!rows[0]?.known) throw new Error(`job ${jobId} has no step ${j.step?.step}: nothing was recorded`);
  if (!rows[0].approved) throw new NoApprovalRecorded(`job ${jobId} has no approved decision recorded`);
  if (effect) checkAllowed(effect, rows[0].allowed);
  return { effect: rows[0].effect, config: rows[0].config ?? {} };
}

/**
 * An event of the approval wait, recorded by the API in the transaction of the submission or decision it reports:
 * after the events already there, before the step's end. Two writers at once would take the same slot (the second
 * fails on the key): the API's writers are serialised by the mandate's row, which each updates first.
 */
export async function recordWaitEvent(
  q: Queryable,
  jobId: string,
  stepId: string,
  event: Omit<JournalLine, 'step' | 'at'>,
): Promise<void> {
  const { rowCount } = await q.query(
    `WITH ${DEFINITION_STEPS}, intent AS (
       INSERT INTO job_intents (job_id, step_id, position, name, provider)
       SELECT $1, step_id, position, name, provider FROM def WHERE step_id = $2
       ON CONFLICT (job_id, step_id) DO UPDATE SET updated_at = now()
       RETURNING job_id
     )
     INSERT INTO job_events (job_id, step_id, idx, status, code, message)
     SELECT $1, $2, COALESCE((SELECT max(idx) FROM job_events WHERE job_id = $1 AND step_id = $2 AND idx < ${END_SLOT}), ${START_SLOT}) + 1, $3, $4, $5
     FROM intent`,
    [jobId, stepId, event.status, event.code ?? null, event.message ?? null],
  );
  // The caller's transaction rolls back rather than lose the event of a step its job does not have.
  if (rowCount !== 1) throw new Error(`job ${jobId} has no step ${stepId}: its approval wait's event was not recorded`);
}
