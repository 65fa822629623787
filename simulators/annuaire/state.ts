// What the simulator keeps in its state file (journal.ts): the snapshot's shape, as it always was plus what came later,
// and the journal's records, each the whole new state of one thing.
import type { StoredCompany } from './companies';
import type { StoredLine } from './lines';
import type { StoredRoutingCode } from './routing-codes';

export interface SimSettings {
  /** The day the simulator counts in; null: the real date (UTC). */
  day: string | null;
  /** Changes written through the API (or as another platform) are read from the next day only. */
  changesVisibleNextDay: boolean;
}

export type JournalRecord =
  | { t: 'line'; v: StoredLine }
  | { t: 'code'; v: StoredRoutingCode }
  | { t: 'company'; v: StoredCompany }
  | { t: 'settings'; v: SimSettings };

/** The state file. routingCodes, companies and settings came later: older files have none. */
export interface Snapshot {
  nextId: number;
  lines: StoredLine[];
  routingCodes?: readonly StoredRoutingCode[];
  companies?: StoredCompany[];
  settings?: SimSettings;
}
