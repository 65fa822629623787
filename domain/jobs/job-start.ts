// Whether a job may be recorded on an entry, decided from what the store read of it (platform/store/jobs.ts
// lockJobStartFacts): a pure function, so the rules are read and tested here rather than inside a statement.
import type { JobStartFacts } from '../../platform/store/jobs';

export type JobStartRefusal =
  | { outcome: 'no-entry' }
  | { outcome: 'wrong-schema'; schema: string }
  | { outcome: 'siren-registered'; siren: string; entryId: string }
  | { outcome: 'invalid-data'; faults: Array<{ message: string }> }
  | { outcome: 'not-registered'; state: string | null };

export interface JobStartAsked {
  /** The documents the workflow processes. */
  docSchema: string;
  /** A registration: it registers the entry's SIREN. */
  registers: boolean;
  /** An unregistration or an address update: it acts on a registered entry's lines. */
  unregisters?: boolean;
}

/** States in which an entry has nothing to unregister or update: never registered, void, cancelled. */
const NOTHING_TO_UNDO = [null, 'void', 'cancelled'];

/**
 * Undefined when the job may start; else why not, in this order: the entry (of the workspace) is missing or holds
 * other documents; a registration while an entry of the workspace has the SIREN registered (the entry itself
 * named first), or of a party kept invalid; an unregistration of an entry with nothing to undo.
 */
export function jobStartRefusal(facts: JobStartFacts, asked: JobStartAsked): JobStartRefusal | undefined {
  const { entry } = facts;
  if (!entry) return { outcome: 'no-entry' };
  if (entry.docSchema !== asked.docSchema) return { outcome: 'wrong-schema', schema: entry.docSchema };
  if (asked.registers) {
    const registered = entry.siren && [entry, ...facts.sameSiren].find((e) => e.state === 'registered');
    if (registered) return { outcome: 'siren-registered', siren: entry.siren!, entryId: registered.id };
    if (entry.draftFaults) return { outcome: 'invalid-data', faults: entry.draftFaults };
  }
  if (asked.unregisters && NOTHING_TO_UNDO.includes(entry.state))
    return { outcome: 'not-registered', state: entry.state };
  return undefined;
}
