// The floor of `npm run bench:onboarding`: what Temporal itself costs for a registration's shape — the same number
// of activities and local activities, all no-ops, before and after one signal wait. No store, no HTTP, no I/O.
import { condition, defineSignal, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type * as activities from './floor-activities';

export interface PhaseShape {
  activities: number;
  localActivities: number;
}

export const goSignal = defineSignal('go');

const remote = proxyActivities<typeof activities>({ startToCloseTimeout: '1 minute' });
const local = proxyLocalActivities<typeof activities>({ startToCloseTimeout: '30 seconds' });

/** Local activities spread before each activity, as the journal writes surround each step of a registration. */
async function phase(shape: PhaseShape, mark: 'waiting' | 'done'): Promise<void> {
  const perStep = Math.floor(shape.localActivities / Math.max(shape.activities, 1));
  let locals = shape.localActivities;
  for (let i = 0; i < shape.activities; i++) {
    for (let j = 0; j < perStep && locals > 0; j++, locals--) await local.noop();
    await remote.noop();
  }
  for (; locals > 1; locals--) await local.noop();
  if (locals > 0) await local.mark(mark); // the last one tells the bench this phase is over
  else await remote.mark(mark);
}

export async function floorRegistration(shape: { before: PhaseShape; after: PhaseShape }): Promise<void> {
  let go = false;
  setHandler(goSignal, () => void (go = true));
  await phase(shape.before, 'waiting');
  await condition(() => go);
  await phase(shape.after, 'done');
}
