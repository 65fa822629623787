// Next-day visibility: in the real directory "updates become visible the next day". When the setting is on, a change
// written on day D keeps, on the line, what reads saw before it (`before`) until D+1; reads on the simulator's day
// take that view, writes and their rules the true state. One view per line suffices: a second change the same day
// keeps the first one's `before` (what was visible), a change on a later day replaces a spent one.
import { addDays } from './days';
import type { StoredLine } from './lines';

/** Called before a change of `l` written on `day` (or just after its creation, `created`). */
export function remember(l: StoredLine, day: string, created = false): void {
  if (l.before && day < l.before.until) return; // still pending: reads keep seeing the older state
  const until = addDays(day, 1);
  l.before = created
    ? { until, absent: true, dateFinEffet: null }
    : { until, dateFinEffet: l.dateFinEffet, ...(l.masque && { masque: true as const }) };
}

/** The line as reads see it on `day`; undefined when it is not visible yet. `l` itself when nothing is pending. */
export function viewOn(l: StoredLine, day: string): StoredLine | undefined {
  const b = l.before;
  if (!b || day >= b.until) return l;
  if (b.absent) return undefined;
  const { masque: _masque, before: _before, ...rest } = l;
  return { ...rest, dateFinEffet: b.dateFinEffet, ...(b.masque && { masque: true }) };
}
