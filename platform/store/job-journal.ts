// A job's journal as its steps write it: each step's activity records its intent and events with its effect, and
// the API records the approval wait's events with the submission and the decision.
import type { JobStatusChange, JournalLine, StepJournalling } from '../../contract/journal';
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

/** Every line step `stepId` records at its end: what is owed, its own start and end, the start of the wait it opens. */
export function stepLines(stepId: string, j: StepJournalling): JournalLine[] {
  const own: JournalLine[] = [
    { step: stepId, at: 'start', status: 'RUN' },
    { step: stepId, at: 'end', status: 'OK' },
  ];
  return [
    ...(j.owed ?? []),
    ...own,
    ...(j.opens ? [{ step: j.opens, at: 'start' as const, status: 'RUN' as const }] : []),
  ];
}

/** SQL for the CTE `def`: the steps of job `$1`'s definition, rescue steps after the others, with their positions. */
const DEFINITION_STEPS = `def AS (
       SELECT s->>'id' AS step_id, (o - 1)::int AS position, s->>'name' AS name, s->>'provider' AS provider
       FROM jobs, jsonb_array_elements((jobs.definition->'steps') || (jobs.definition->'rescue')) WITH ORDINALITY AS d(s, o)
       WHERE jobs.id = $1
     )`;

/**
 * Writes the lines (intents created as needed, events in their slots), the job's status and the step's `effect` if
 * any, in one statement; returns the effect's result. Writes nothing and throws NoApprovalRecorded when
 * `requiresApproval` and the job has no approved decision, EffectRefused when the effect's requirement fails.
 */
export async function writeJournal(
  q: Queryable,
  jobId: string,
  j: { lines: JournalLine[]; status?: JobStatusChange; requiresApproval?: boolean },
  effect?: StatementEffect,
): Promise<unknown> {
  const lines = j.lines.map((l) => ({
    step_id: l.step,
    completed: l.at === 'end',
    idx: l.at === 'end' ? END_SLOT : START_SLOT,
    status: l.status,
    code: l.code ?? null,
    message: l.message ?? null,
  }));
  // One statement: the guard, the intents, the events and the job's status together (foreign keys are checked at
  // its end). A step missing from the definition has no name: the insert fails rather than lose the line.
  const status = jobStatusParams(jobId, j.status);
  const firstOfEffect = 4 + status.length;
  const guard = '(SELECT ok AND allowed FROM approved)';
  const { rows } = await q.query<{ approved: boolean; allowed: boolean; effect: unknown }>(
    `WITH approved AS (
       SELECT NOT $3::boolean OR EXISTS (
         SELECT 1 FROM jobs j JOIN agreements a ON a.entry_id = j.silo_entry_id AND a.job_id = j.id
         JOIN approval_decisions d ON d.id = a.decision_id WHERE j.id = $1 AND d.approved) AS ok,
         ${effect ? requiredBy(effect, firstOfEffect) : 'true'} AS allowed
     ), ${DEFINITION_STEPS}, line AS (
       SELECT l.*, def.position, def.name, def.provider
       FROM jsonb_to_recordset($2::jsonb) AS l(step_id text, completed boolean, idx int, status text, code text, message text)
       LEFT JOIN def USING (step_id), approved WHERE approved.ok AND approved.allowed
     ), intent AS (
       INSERT INTO job_intents (job_id, step_id, position, name, provider, completed)
       SELECT DISTINCT ON (step_id) $1, step_id, position, name, provider, completed FROM line ORDER BY step_id, completed DESC
       ON CONFLICT (job_id, step_id) DO UPDATE SET completed = job_intents.completed OR EXCLUDED.completed, updated_at = now()
     ), step_event AS (
       INSERT INTO job_events (job_id, step_id, idx, status, code, message)
       SELECT $1, step_id, idx, status, code, message FROM line ON CONFLICT DO NOTHING
     ), ${jobStatusCtes(4, guard)}${effect ? `, ${effect.ctes(firstOfEffect, guard)}` : ''}
     SELECT ok AS approved, allowed${effect ? `, ${effect.result} AS effect` : ''} FROM approved`,
    [jobId, JSON.stringify(lines), j.requiresApproval === true, ...status, ...(effect?.params ?? [])],
  );
  if (!rows[0]?.approved) throw new NoApprovalRecorded(`job ${jobId} has no approved decision recorded`);
  if (effect) checkAllowed(effect, rows[0].allowed);
  return rows[0].effect;
}

/**
 * An event of the approval wait, recorded by the API in the transaction of the submission or decision it reports:
 * after the events already there, before the step's end. Two writers at once would take the same slot (the second
 * fails on the key): the API's writers are serialised by the agreement's row, which each updates first.
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
