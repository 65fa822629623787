// A party's state: set by a job's step (silo.state, in the step's one statement) or the API, with its history and its
// `party.state_changed` event; a job's step sets it once.
import type { Queryable } from './db';
import { eventCtes, eventParams } from './events';
import { runEffect, stepConfig, type StatementEffect } from './statement-effect';
import { PARTY_STATES } from '../../contract/job';
import { iso } from './rows';

/** A party's state set by a job's step (silo.state). */
export interface StateChange {
  entryId: string;
  state: string;
  jobId: string;
  stepId: string;
  faults?: unknown[];
}

/**
 * The state change as a statement's effect: the state row (once per job step, as the activity may run twice), the
 * entry's state and its `party.state_changed` event, written only where `guard` holds; its result says whether
 * this call changed anything.
 */
export function stateEffect(s: StateChange): StatementEffect {
  return stateEffectOf(s, s.state, (param) => `${param}::text`);
}

/**
 * The state change a `silo.state` step's definition configures, read in the step's journal statement (writeJournal's
 * `step`): refused as `invalid-config` unless it is a party state. Its result: [changed, the state].
 */
export function configuredStateEffect(s: Omit<StateChange, 'state'>): StatementEffect {
  const state = `(${stepConfig('state')})`;
  const effect = stateEffectOf(s, PARTY_STATES, () => state); // the state's parameter: the states it may be
  return {
    ...effect,
    result: `json_build_array(${effect.result}, ${state})`,
    requires: {
      holds: (first) => `COALESCE(${state} = ANY ($${first + 1}::text[]), false)`,
      type: 'invalid-config',
      message: `silo.state needs config.state, one of ${PARTY_STATES.join(', ')}`,
    },
  };
}

function stateEffectOf(
  s: Omit<StateChange, 'state'>,
  stateParam: unknown,
  stateSql: (param: string) => string,
): StatementEffect {
  const faults = JSON.stringify(s.faults ?? []);
  const event = eventParams({
    kind: 'party.state_changed',
    entryId: s.entryId,
    jobId: s.jobId,
    data: { faults: s.faults ?? [] },
  });
  return {
    params: [s.entryId, stateParam, s.jobId, s.stepId, faults, ...event],
    result: 'EXISTS (SELECT 1 FROM recorded)',
    ctes(first, guard) {
      const [entry, job, step, faultsP] = [0, 2, 3, 4].map((i) => `$${first + i}`);
      const state = stateSql(`$${first + 1}`);
      const payload = `$${first + 8}::jsonb || jsonb_build_object('state', ${state})`;
      return `recorded AS (
       INSERT INTO entry_states (entry_id, state, job_id, step_id, faults)
       SELECT ${entry}::uuid, ${state}, ${job}::uuid, ${step}::text, ${faultsP}::jsonb WHERE ${guard}
       ON CONFLICT (job_id, step_id) DO NOTHING
       RETURNING entry_id
     ), entry AS (
       UPDATE entries SET state = ${state}, faults = ${faultsP}::jsonb, updated_at = now() WHERE id IN (SELECT entry_id FROM recorded)
       RETURNING id, workspace_id
     ), ${eventCtes('entry', first + 5, payload, 'state_event')}`;
    },
  };
}

/**
 * Sets the party's state with its event, in one statement. A second call for the same (job, step) changes nothing
 * (`changed` false), so a retried activity cannot move the state twice.
 */
export async function recordState(db: Queryable, s: StateChange): Promise<{ changed: boolean }> {
  return { changed: (await runEffect(db, stateEffect(s))) === true };
}

/**
 * A state the nightly reconciliation sets (moved-out, ceased), outside any job, with its history row and its
 * `party.state_changed` event carrying `why`. The caller makes it happen once (in the transaction that closes its
 * finding).
 */
export async function recordReconciledState(
  db: Queryable,
  s: { entryId: string; state: string; why: Record<string, unknown> },
): Promise<void> {
  const event = eventParams({ kind: 'party.state_changed', entryId: s.entryId, data: { faults: [], ...s.why } });
  await db.query(
    `WITH recorded AS (
       INSERT INTO entry_states (entry_id, state, step_id) VALUES ($1::uuid, $2::text, 'reconciliation') RETURNING entry_id
     ), entry AS (
       UPDATE entries SET state = $2::text, faults = '[]', updated_at = now() WHERE id IN (SELECT entry_id FROM recorded)
       RETURNING id, workspace_id
     ), ${eventCtes('entry', 3, `$6::jsonb || jsonb_build_object('state', $2::text)`)}
     SELECT 1`,
    [s.entryId, s.state, ...event],
  );
}

/** The entry's state now (null before its first). */
export async function currentState(db: Queryable, entryId: string): Promise<string | null> {
  const { rows } = await db.query<{ state: string | null }>('SELECT state FROM entries WHERE id = $1', [entryId]);
  return rows[0]?.state ?? null;
}

export async function stateHistory(db: Queryable, entryId: string) {
  const { rows } = await db.query<{ state: string; job_id: string | null; step_id: string | null; created_at: Date }>(
    'SELECT state, job_id, step_id, created_at FROM entry_states WHERE entry_id = $1 ORDER BY id',
    [entryId],
  );
  return rows.map((r) => ({ state: r.state, job_id: r.job_id, step_id: r.step_id, at: iso(r.created_at) }));
}
