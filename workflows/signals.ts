// Signal and query definitions, importable by the API without pulling in the interpreter.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ApprovalSignal } from './types';

export const approvalSignal = defineSignal<[ApprovalSignal]>('approval');

/**
 * Cancels the job (POST /transform/v1/jobs/{id}/cancel): refused once a step acting outside (the directory, Peppol)
 * has started, or once the job has ended; completes when the job has ended CANCEL. Its reason is in the store.
 */
export const cancelUpdate = defineUpdate<void, []>('cancel');

/** Why the workflow refused a cancellation (the failure's type). */
export const CANCEL_REFUSED = { ended: 'job-ended', outside: 'acting-outside' } as const;

export interface JobProgress {
  status: 'RUN' | 'WAIT' | 'OK' | 'ERR';
  step?: { id: string; name: string; provider: string };
  submitted: boolean;
}

/** Answered by the legacy runJob only. */
export const progressQuery = defineQuery<JobProgress>('progress');
