// A registration's shape as Temporal sees it, read from one of our histories: how many activities and local
// activities run before the first signal (to the approval wait) and after the last one (approval → registered).
import type { temporal } from '@temporalio/proto';
import type { PhaseShape } from './floor-workflow';

export interface Shape { before: PhaseShape; after: PhaseShape }

export function countShape(history: temporal.api.history.v1.IHistory): Shape {
  const events = history.events ?? [];
  const signals = events.map((e, i) => (e.workflowExecutionSignaledEventAttributes ? i : -1)).filter((i) => i >= 0);
  if (signals.length === 0) throw new Error('the reference history has no signal');
  const count = (from: number, to: number): PhaseShape => {
    const slice = events.slice(from, to);
    return {
      activities: slice.filter((e) => e.activityTaskScheduledEventAttributes).length,
      // Only local activities' markers: patch markers (patched()) are no work to reproduce.
      localActivities: slice.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length,
    };
  };
  return { before: count(0, signals[0]!), after: count(signals.at(-1)! + 1, events.length) };
}
