// The one mapping of a use case's failures to Temporal. A remote failure worth retrying (no answer, 408, 429, 5xx) is
// retried by the activity's policy, as soon as the server's Retry-After asks; an answer saying no fails the step for
// good. Fault codes: `<system>-unavailable` and `<system>-rejected` (system: annuaire, sml, directory); the message
// keeps the remote's status and detail, and becomes the job's fault. A use case's own refusal (StepRefused) fails the
// step for good with its code.
import { ApplicationFailure } from '@temporalio/activity';
import { RemoteFailure } from '../domain/remote-failure';
import { StepRefused } from '../domain/errors';

/** Runs a use case, its failures mapped to Temporal's; anything else is thrown as it is. */
export async function withTemporalFailures<T>(useCase: () => Promise<T>): Promise<T> {
  try {
    return await useCase();
  } catch (err) {
    throw temporalFailureOf(err);
  }
}

export function temporalFailureOf(err: unknown): unknown {
  if (err instanceof StepRefused) return ApplicationFailure.nonRetryable(err.message, err.code);
  if (!(err instanceof RemoteFailure)) return err;
  return ApplicationFailure.create({
    message: err.message,
    type: `${err.system}-${err.retryable ? 'unavailable' : 'rejected'}`,
    nonRetryable: !err.retryable,
    ...(err.retryable && err.retryAfterMs !== undefined && { nextRetryDelay: err.retryAfterMs }),
    details: [{ system: err.system, status: err.status ?? null, ...err.said }],
  });
}
