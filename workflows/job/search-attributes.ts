// The job's search attributes, which operators filter parked runs on in the Temporal UI: its status, the party's
// state and, while the job waits, what for. Upserted in batches.
import { upsertSearchAttributes } from '@temporalio/workflow';
import { JobStatus, PartyState, WaitingFor } from '../../contract/search-attributes';

type Key = typeof JobStatus | typeof PartyState | typeof WaitingFor;

/**
 * Upserted together before the workflow next yields (an activity, a wait, the end): one visibility write for each
 * change an operator filters on. A value already there is not written again; null removes the attribute.
 */
export class SearchAttributes {
  private readonly shown = new Map<Key, string | null>([[JobStatus, 'RUN']]); // the start set JobStatus RUN
  private readonly pending = new Map<Key, string | null>();

  /**
   * `waitingForAlone`: whether a change of WaitingFor alone is written (JobInput.showsWaitingFor). A run started by a
   * build before it replays a history with no write there: it keeps the change for its next write.
   */
  constructor(private readonly waitingForAlone: boolean) {}

  set(key: Key, value: string | null): void {
    // What the job waits for is shown while it is WAIT only, and goes with the write that ends the wait.
    if (key === WaitingFor && value !== null && this.current(JobStatus) !== 'WAIT') return;
    if ((this.shown.get(key) ?? null) === value) this.pending.delete(key);
    else this.pending.set(key, value);
    if (key === JobStatus && value !== 'WAIT') this.set(WaitingFor, null);
  }

  /** The value as the next write leaves it. */
  current(key: Key): string | null {
    return (this.pending.has(key) ? this.pending.get(key) : this.shown.get(key)) ?? null;
  }

  /**
   * Writes `key` again as the run holds it: a run parked by a build that did not write it (it replays as if it had)
   * shows it when asked (contract/signals.ts showWaitingForSignal).
   */
  rewrite(key: Key): void {
    const value = this.current(key);
    if (value !== null) this.pending.set(key, value);
  }

  /**
   * Writes what changed. `asked`: for a signal only this build takes (a history from before has none), so a change
   * of WaitingFor alone is written even in a run started before it.
   */
  flush(asked = false): void {
    if (this.pending.size === 0) return;
    if (!this.waitingForAlone && !asked && [...this.pending.keys()].every((k) => k === WaitingFor)) return;
    upsertSearchAttributes([...this.pending].map(([key, value]) => ({ key, value })));
    for (const [key, value] of this.pending) this.shown.set(key, value);
    this.pending.clear();
  }
}
