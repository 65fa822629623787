// The SIREN of a step's entry, for the steps that act on it outside (directory, Peppol). One lookup, one fault code
// per cause: `entry-not-found` (deleted meanwhile), `siren-missing` (the party has no SIREN; the mandate step says
// the same).
import type { Queryable } from '../../platform/store/db';
import { getEntryRow } from '../../platform/store/entries';
import type { EntryFacts } from '../../platform/store/entry-facts';
import { StepRefused } from '../errors';

export async function entrySiren(db: Queryable, ids: { workspaceId: string; entryId: string }): Promise<string> {
  const row = await getEntryRow(db, ids.workspaceId, ids.entryId);
  return sirenIn({ found: !!row, ...(row?.siren && { siren: row.siren }) }, ids.entryId);
}

/** The same, from the facts the step read with its start (platform/store/entry-facts.ts). */
export function sirenIn(facts: Pick<EntryFacts, 'found' | 'siren'>, entryId: string): string {
  if (!facts.found) throw new StepRefused('entry-not-found', `entry ${entryId} not found`);
  if (!facts.siren) throw new StepRefused('siren-missing', `entry ${entryId} has no SIREN`);
  return facts.siren;
}

/**
 * The SIREN and the mandate in force, for a step acting on the company's behalf: only with its signed, approved
 * mandate (`mandate-not-approved`). `step` names it in the refusal.
 */
export function sirenAndMandateIn(facts: EntryFacts, entryId: string, step: string) {
  const siren = sirenIn(facts, entryId);
  const mandate = facts.mandate;
  if (!mandate)
    throw new StepRefused(
      'mandate-not-approved',
      `the party has no signed and approved mandate: ${step} must follow gov-fr.agreement.sign and the approval wait`,
    );
  return { siren, mandate };
}
