// The signals and update a job's workflow takes from the API.
import { defineSignal, defineUpdate } from '@temporalio/workflow';

/**
 * A hint that the job's approval wait may be over: the store holds what was decided (workflows/job/approval.ts).
 * `first-approved`: an approval that needs a second operator's (four eyes) is recorded; the wait goes on.
 */
export type ApprovalSignal = (
  | { kind: 'confirmed' }
  | { kind: 'first-approved' }
  | {
      kind: 'decided';
      approved: boolean;
      decisionId?: string;
      /**
       * An automatic approval (the decision policy's): the registration runs on at this time (ISO), unless an
       * operator's rejection overturns it before.
       */
      holdUntil?: string;
    }
) & {
  /** The party's state the API recorded with it (a registered party stays so); absent from older signals. */
  partyState?: string;
};

export const approvalSignal = defineSignal<[ApprovalSignal]>('approval');

/**
 * Asks a job to write what it waits for (the WaitingFor search attribute) as it holds it: for the runs parked by a
 * build before that attribute, which replay as if they had written it (domain/jobs/job-sweeper.ts).
 */
export const showWaitingForSignal = defineSignal('show-waiting-for');

/**
 * Cancels the job (POST /transform/v1/jobs/{id}/cancel): refused once a step acting outside (the directory, Peppol)
 * has started, or once the job has ended; completes when the job has ended CANCEL. Its reason is in the store.
 */
export const cancelUpdate = defineUpdate<void, []>('cancel');

/** Why the workflow refused a cancellation (the failure's type). */
export const CANCEL_REFUSED = { ended: 'job-ended', outside: 'acting-outside' } as const;
