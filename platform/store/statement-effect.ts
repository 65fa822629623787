// A write composed into a larger statement as CTEs (e.g. a step's effect with its journal lines), or run alone.
import type { Queryable } from './db';

/**
 * A step's whole effect as CTEs of the journal's statement (written under its approval guard, from parameter
 * `$first`), and an SQL expression of what it returns. `requires`: what must hold for anything to be written, the
 * journal's lines included (checked in the statement, so the step needs no read before it).
 */
export interface StatementEffect {
  ctes(first: number, guard: string): string;
  params: unknown[];
  result: string;
  requires?: { holds(first: number): string; type: string; message: string };
}

/** The effect's `requires` did not hold: nothing was written. `type` is the step's fault code. */
export class EffectRefused extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * SQL for the text value `key` of the step's config, in the step's journal statement (job-journal.ts writeJournal:
 * its CTE `step` reads the job's definition): an effect configured by the definition needs no read of its own.
 */
export const stepConfig = (key: string) => `SELECT config->>'${key}' FROM step`;

/** The SQL boolean of what the effect requires, its parameters from `$first`. */
export const requiredBy = (effect: StatementEffect, first: number) => effect.requires?.holds(first) ?? 'true';

/** Throws EffectRefused when the statement found the effect's requirement unmet. */
export function checkAllowed(effect: StatementEffect, allowed: boolean | undefined): void {
  if (allowed === false && effect.requires) throw new EffectRefused(effect.requires.type, effect.requires.message);
}

/** The effect on its own, in one statement; returns its result. */
export async function runEffect(q: Queryable, effect: StatementEffect): Promise<unknown> {
  const { rows } = await q.query<{ allowed: boolean; effect: unknown }>(
    `WITH effect_allowed AS (SELECT ${requiredBy(effect, 1)} AS allowed), ${effect.ctes(1, '(SELECT allowed FROM effect_allowed)')}
     SELECT allowed, ${effect.result} AS effect FROM effect_allowed`,
    effect.params,
  );
  checkAllowed(effect, rows[0]?.allowed);
  return rows[0]?.effect;
}

/**
 * Two effects in one statement (their CTE names must differ); the result is the pair of theirs. At most one of them
 * may have a requirement (its failure must name one cause).
 */
export function bothEffects(a: StatementEffect, b: StatementEffect): StatementEffect {
  if (a.requires && b.requires) throw new Error('bothEffects: only one of the two effects may have a requirement');
  const requires =
    a.requires ??
    (b.requires && { ...b.requires, holds: (first: number) => b.requires!.holds(first + a.params.length) });
  return {
    params: [...a.params, ...b.params],
    result: `json_build_array(${a.result}, ${b.result})`,
    ctes: (first, guard) => `${a.ctes(first, guard)}, ${b.ctes(first + a.params.length, guard)}`,
    ...(requires && { requires }),
  };
}
