// The store's side of "exactly once", for the suites that run many processes: a table holds one row per entry for
// the entries expected, and none for others. Faults in words, so a failure says which entry and which table.
import type { Queryable } from '../../platform/store/db';

/** The store's tables keyed by entry that a registration writes once. */
export type PerEntryTable = 'mandate_numbers' | 'mandates' | 'approval_decisions' | 'directory_holdings';

export async function oncePerEntryFaults(db: Queryable, table: PerEntryTable, entryIds: string[]): Promise<string[]> {
  const { rows } = await db.query<{ entry_id: string; n: number }>(
    `SELECT entry_id, count(*)::int AS n FROM ${table} GROUP BY entry_id`,
  );
  const counts = new Map(rows.map((r) => [r.entry_id, r.n]));
  const expected = new Set(entryIds);
  return [
    ...entryIds.filter((id) => counts.get(id) !== 1).map((id) => `${table}: ${counts.get(id) ?? 0} rows for ${id}`),
    ...[...counts.keys()].filter((id) => !expected.has(id)).map((id) => `${table}: rows for ${id}, not expected`),
  ];
}
