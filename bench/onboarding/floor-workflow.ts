// The floor of `npm run bench:onboarding`: what Temporal itself costs for a registration of the specification's
// shape, with no-op activities: 2 activities (sign; state processing), the approval wait with its deadline (one
// timer, as DOMAIN.md §4 asks: a registration waiting longer fails), the approval protocol's signals (confirmed,
// then decided), 4 activities (state completed; directory; Peppol; state registered), and the same search-attribute
// writes as ours (3 at start, given by the bench; 4 upserts, what the wait is for with them). No local activities, no store, no HTTP, no I/O.
import { condition, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import { approvalSignal } from '../../contract/signals';
import { JobStatus, PartyState, WaitingFor } from '../../contract/search-attributes';
import type * as activities from './floor-activities';

const { noop, mark } = proxyActivities<typeof activities>({ startToCloseTimeout: '1 minute' });

/** `approvalDeadline`: the service's APPROVAL_DEADLINE, e.g. "30d". */
export async function floorRegistration(approvalDeadline: string): Promise<void> {
  let decided = false;
  setHandler(approvalSignal, (s) => {
    if (s.kind === 'confirmed')
      upsertSearchAttributes([
        { key: PartyState, value: 'submitted' },
        { key: WaitingFor, value: 'decision' },
      ]);
    else decided = true;
  });
  await noop();
  await mark('waiting'); // the 2nd activity notes the phase's end: a mark must not add an activity
  upsertSearchAttributes([
    { key: PartyState, value: 'processing' },
    { key: JobStatus, value: 'WAIT' },
    { key: WaitingFor, value: 'signer' },
  ]);
  if (!(await condition(() => decided, approvalDeadline))) throw new Error('approval deadline passed');
  await noop();
  upsertSearchAttributes([
    { key: PartyState, value: 'completed' },
    { key: JobStatus, value: 'RUN' },
    { key: WaitingFor, value: null },
  ]);
  await noop();
  await noop();
  await mark('done');
  upsertSearchAttributes([
    { key: PartyState, value: 'registered' },
    { key: JobStatus, value: 'OK' },
  ]);
}
