// A registration's shape as Temporal sees it, read from a history, to print ours beside the floor's: what runs
// before the first signal (to the approval wait), between the signals, and after the last one (→ registered).
import type { Client } from '@temporalio/client';
import proto, { type temporal } from '@temporalio/proto';

interface Part {
  activities: number;
  local: number;
  upserts: number;
  timers: number;
}
export interface Shape {
  startAttributes: number;
  before: Part;
  signals: number;
  between: Part;
  after: Part;
}

export function countShape(history: temporal.api.history.v1.IHistory): Shape {
  const events = history.events ?? [];
  const signals = events.map((e, i) => (e.workflowExecutionSignaledEventAttributes ? i : -1)).filter((i) => i >= 0);
  if (signals.length === 0) throw new Error('the history has no signal');
  const count = (from: number, to: number): Part => {
    const slice = events.slice(from, to);
    return {
      activities: slice.filter((e) => e.activityTaskScheduledEventAttributes).length,
      // Only local activities' markers: patch markers (patched()) are no work.
      local: slice.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length,
      upserts: slice.filter((e) => e.upsertWorkflowSearchAttributesEventAttributes).length,
      timers: slice.filter((e) => e.timerStartedEventAttributes).length, // the approval deadline's
    };
  };
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  return {
    startAttributes: Object.keys(started?.searchAttributes?.indexedFields ?? {}).length,
    before: count(0, signals[0]!),
    signals: signals.length,
    between: count(signals[0]!, signals.at(-1)! + 1),
    after: count(signals.at(-1)! + 1, events.length),
  };
}

const n = (k: number, one: string, many: string) => `${k} ${k === 1 ? one : many}`;
const part = (p: Part) =>
  `${n(p.activities, 'activity', 'activities')}, ${p.local} local, ${n(p.upserts, 'upsert', 'upserts')}, ${n(p.timers, 'timer', 'timers')}`;

/** One line, e.g. `before the wait 2 activities, 0 local, 1 upsert; signals 2 (1 upsert); after 4 activities, …`. */
export function formatShape(s: Shape): string {
  // Between the signals, activities and local activities only when there are some (the specification has none).
  const between = [
    s.between.activities ? n(s.between.activities, 'activity', 'activities') : '',
    s.between.local ? `${s.between.local} local` : '',
    n(s.between.upserts, 'upsert', 'upserts'),
  ]
    .filter(Boolean)
    .join(', ');
  return `started with ${s.startAttributes} search attributes; before the wait ${part(s.before)}; signals ${s.signals} (${between}); after ${part(s.after)}`;
}

/** Per activity type, the mean milliseconds its tasks waited in the queue and ran (started → closed). */
export type ActivityTimes = Record<string, { waited: number; ran: number; n: number }>;

const ms = (t: temporal.api.history.v1.IHistoryEvent | undefined) =>
  t?.eventTime ? Number(t.eventTime.seconds ?? 0) * 1000 + (t.eventTime.nanos ?? 0) / 1e6 : NaN;

/** Adds each activity of the history to `times`: where a slower phase's time went, activity by activity. */
function addActivityTimes(history: temporal.api.history.v1.IHistory, times: ActivityTimes): void {
  const byId = new Map((history.events ?? []).map((e) => [Number(e.eventId), e]));
  for (const e of history.events ?? []) {
    const closed = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes;
    if (!closed) continue;
    const scheduled = byId.get(Number(closed.scheduledEventId));
    const started = byId.get(Number(closed.startedEventId));
    const type = scheduled?.activityTaskScheduledEventAttributes?.activityType?.name ?? '?';
    const t = (times[type] ??= { waited: 0, ran: 0, n: 0 });
    t.waited += ms(started) - ms(scheduled);
    t.ran += ms(e) - ms(started);
    t.n++;
  }
}

/**
 * The mean size of the histories of up to `sample` of the runs (events, and bytes as the server stores them), and
 * their activities' mean times.
 */
export async function meanHistorySize(
  client: Client,
  workflowIds: string[],
  sample = 100,
): Promise<{ events: number; bytes: number; runs: number; activities: ActivityTimes }> {
  const step = Math.max(1, Math.floor(workflowIds.length / sample));
  const ids = workflowIds.filter((_, i) => i % step === 0).slice(0, sample);
  let events = 0;
  let bytes = 0;
  const activities: ActivityTimes = {};
  for (const id of ids) {
    const history = await client.workflow.getHandle(id).fetchHistory();
    events += history.events?.length ?? 0;
    bytes += proto.temporal.api.history.v1.History.encode(history).finish().length;
    addActivityTimes(history, activities);
  }
  return { events: events / ids.length, bytes: bytes / ids.length, runs: ids.length, activities };
}

/** "gov-fr-directory 12/340 ms, …": each activity's mean wait in the queue / run, ours or the floor's. */
export const formatActivityTimes = (times: ActivityTimes) =>
  Object.entries(times)
    .map(([type, t]) => `${type} ${(t.waited / t.n).toFixed(0)}/${(t.ran / t.n).toFixed(0)} ms`)
    .join(', ');

export const formatHistorySize = (h: { events: number; bytes: number }) =>
  `${h.events.toFixed(1)} events, ${(h.bytes / 1024).toFixed(1)} KB`;
