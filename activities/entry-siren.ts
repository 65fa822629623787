// The SIREN of a step's entry, for the steps that act on it outside (directory, Peppol). One lookup, one fault code
// per cause: `entry-not-found` (deleted meanwhile), `siren-missing` (the party has no SIREN; the mandate step says
// the same).
import { ApplicationFailure } from '@temporalio/activity';
import type { Queryable } from '../platform/store/db';
import { getEntryRow } from '../platform/store/entries';
import type { StepInput } from '../contract/journal';
import type { EntryFacts } from '../platform/store/entry-facts';

export async function entrySiren(db: Queryable, input: Pick<StepInput, 'workspaceId' | 'entryId'>): Promise<string> {
  const row = await getEntryRow(db, input.workspaceId, input.entryId);
  return sirenIn({ found: !!row, ...(row?.siren && { siren: row.siren }) }, input.entryId);
}

/** The same, from the facts the step read with its start (entry-facts.ts). */
export function sirenIn(facts: Pick<EntryFacts, 'found' | 'siren'>, entryId: string): string {
  if (!facts.found) throw ApplicationFailure.nonRetryable(`entry ${entryId} not found`, 'entry-not-found');
  if (!facts.siren) throw ApplicationFailure.nonRetryable(`entry ${entryId} has no SIREN`, 'siren-missing');
  return facts.siren;
}
