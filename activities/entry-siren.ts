// The SIREN of a step's entry, for the steps that act on it outside (directory, Peppol). One lookup, one fault code
// per cause: `entry-not-found` (deleted meanwhile), `siren-missing` (the party has no SIREN; the mandate step says
// the same).
import { ApplicationFailure } from '@temporalio/activity';
import type { Queryable } from '../platform/store/db';
import { getEntryRow } from '../platform/store/entries';
import type { StepInput } from '../contract/journal';

export async function entrySiren(db: Queryable, input: Pick<StepInput, 'workspaceId' | 'entryId'>): Promise<string> {
  const row = await getEntryRow(db, input.workspaceId, input.entryId);
  if (!row) throw ApplicationFailure.nonRetryable(`entry ${input.entryId} not found`, 'entry-not-found');
  if (!row.siren) throw ApplicationFailure.nonRetryable(`entry ${input.entryId} has no SIREN`, 'siren-missing');
  return row.siren;
}
