// A step's failure as the job shows it: the provider, a code and a message, from what the activity threw.
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import { AWAITING_APPROVAL } from '../../contract/journal';
import { type Fault, type Step } from '../../contract/job';

/** A step that failed for good, with the fault the job shows. */
export class StepFailed extends Error {
  constructor(readonly fault: Fault) {
    super(fault.message);
  }
}

/** The job was cancelled (the cancel update) before `step` ran, or while it waited there. */
export class Cancelled extends Error {
  constructor(readonly step: Step) {
    super(`cancelled at step ${step.id}`);
  }
}

/** The approval wait failed (its deadline passed), possibly while the step after it was being refused. */
export class WaitFailed extends StepFailed {}

/** The step after the approval wait found no approved decision recorded: the hint that woke it was not one. */
export const refusedForApproval = (err: unknown) =>
  err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === AWAITING_APPROVAL;

export function toFault(step: Step, err: unknown): Fault {
  if (err instanceof StepFailed) return err.fault;
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure)
    return { provider: step.provider, code: cause.type ?? 'failed', message: cause.message };
  if (cause instanceof TimeoutFailure) {
    // Out of retry time: the last attempt's failure says why (the server attaches it as the cause).
    const last = cause.cause ? `: ${cause.cause.message}` : '';
    return {
      provider: step.provider,
      code: 'timeout',
      message: `step "${step.name}" timed out (${cause.timeoutType})${last}`,
    };
  }
  return { provider: step.provider, code: 'failed', message: cause instanceof Error ? cause.message : String(cause) };
}
