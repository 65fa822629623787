// The one mapping of remote failures to Temporal. A failure worth retrying (no answer, 408, 429, 5xx) is retried by
// the activity's policy, as soon as the server's Retry-After asks; an answer saying no fails the step for good. Fault
// codes: `<system>-unavailable` and `<system>-rejected` (system: annuaire, sml, directory); the message keeps the
// remote's status and detail, and becomes the job's fault.
import { ApplicationFailure } from '@temporalio/activity';
import { RemoteFailure } from '../integrations/remote-failure';

export function temporalFailure(err: RemoteFailure, what?: string): ApplicationFailure {
  return ApplicationFailure.create({
    message: what ? `${what}: ${err.message}` : err.message,
    type: `${err.system}-${err.retryable ? 'unavailable' : 'rejected'}`,
    nonRetryable: !err.retryable,
    ...(err.retryable && err.retryAfterMs !== undefined && { nextRetryDelay: err.retryAfterMs }),
    details: [{ system: err.system, status: err.status ?? null, ...err.said }],
  });
}

/** Rethrows a remote failure as its Temporal failure, anything else as it is. */
export function rethrowRemote(err: unknown, what?: string): never {
  throw err instanceof RemoteFailure ? temporalFailure(err, what) : err;
}

/** Runs a remote call, its failures mapped. */
export async function remoteCall<T>(fn: () => Promise<T>, what?: string): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    rethrowRemote(err, what);
  }
}
