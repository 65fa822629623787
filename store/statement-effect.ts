// A write composed into a larger statement as CTEs (e.g. a step's effect with its journal lines), or run alone.
import type { Queryable } from './db';

/**
 * A step's whole effect as CTEs of the journal's statement (written under its approval guard, from parameter
 * `$first`), and an SQL expression of what it returns.
 */
export interface StatementEffect {
  ctes(first: number, guard: string): string;
  params: unknown[];
  result: string;
}

/** The effect on its own, unguarded, in one statement; returns its result. */
export async function runEffect(q: Queryable, effect: StatementEffect): Promise<unknown> {
  const { rows } = await q.query<{ effect: unknown }>(`WITH ${effect.ctes(1, 'true')} SELECT ${effect.result} AS effect`, effect.params);
  return rows[0]?.effect;
}
