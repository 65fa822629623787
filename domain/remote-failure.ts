// A failure of a system outside us, as the domain's ports report it: which system, whether trying again may help
// (no answer, 408, 429, 5xx) and how soon the server asked us to. Each client classifies its own failures once
// (integrations/); activities map them to Temporal in one place (activities/remote-failure.ts), the API to 503 or 502.
export type RemoteSystem = 'annuaire' | 'sml' | 'directory' | 'public-register';

export class RemoteFailure extends Error {
  constructor(
    readonly system: RemoteSystem,
    message: string,
    readonly retryable: boolean,
    /** HTTP status of the answer; undefined when none came back (network error, timeout). */
    readonly status?: number,
    /** The server's Retry-After, on an answer worth retrying. */
    readonly retryAfterMs?: number,
    /** What the server said, in its own members (the PPF's `titre` and `detail`), kept in the job's fault. */
    readonly said?: Record<string, string | undefined>,
  ) {
    super(message);
  }
}

/** Whether a remote said no for good (an answer not worth retrying), as opposed to failing to answer. */
export const refusedForGood = (err: unknown): err is RemoteFailure => err instanceof RemoteFailure && !err.retryable;

/** The error, a remote failure saying what we were doing (the job's fault shows it); anything else as it is. */
export function whileDoing(what: string, err: unknown): unknown {
  if (!(err instanceof RemoteFailure)) return err;
  const { system, retryable, status, retryAfterMs, said } = err;
  return new RemoteFailure(system, `${what}: ${err.message}`, retryable, status, retryAfterMs, said);
}

/** Runs a remote call, its failure saying what it was doing (whileDoing). */
export async function doing<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw whileDoing(what, err);
  }
}
