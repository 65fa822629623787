// What a directory step's plan took over, kept before it writes: a retry of the step finishes the same take-over
// even though the lines handed over no longer show (migration 1763840700000). The retry reads it with its start
// (entry-facts.ts).
import type { Queryable } from './db';

export interface StepTargets {
  /** The addresses whose lines become ours, as the plan named them (identifier and parts). */
  targets: { address: string; siren: string; siret?: string; routingId?: string; suffix?: string }[];
  takenOverFrom?: string;
}

/** Kept once per step: a later attempt's plan holds the first one's targets, so the first record stays true. */
export async function keepPlannedTargets(db: Queryable, jobId: string, stepId: string, t: StepTargets): Promise<void> {
  await db.query(
    `INSERT INTO directory_step_targets (job_id, step_id, targets, taken_over_from) VALUES ($1, $2, $3, $4)
     ON CONFLICT (job_id, step_id) DO UPDATE SET targets = EXCLUDED.targets,
       taken_over_from = COALESCE(directory_step_targets.taken_over_from, EXCLUDED.taken_over_from)`,
    [jobId, stepId, JSON.stringify(t.targets), t.takenOverFrom ?? null],
  );
}
