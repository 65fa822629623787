// Signal and query definitions, importable by the API without pulling in the interpreter.
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { ApprovalSignal } from './types';

export const approvalSignal = defineSignal<[ApprovalSignal]>('approval');

export interface JobProgress {
  status: 'RUN' | 'WAIT' | 'OK' | 'ERR';
  step?: { id: string; name: string; provider: string };
  submitted: boolean;
}

/** Answered by the legacy runJob only. */
export const progressQuery = defineQuery<JobProgress>('progress');
