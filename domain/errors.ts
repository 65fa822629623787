// A refusal the domain explains to its caller: a stable code (the problem codes of web/http/problem-codes.ts, which
// give each its HTTP status in one place) and a detail for people. The domain knows no HTTP status.
import type { ZodError } from 'zod';

export interface DomainErrorFacts {
  /** When to try again (a busy file checker). */
  retryAfterS?: number;
  /** The fields at fault, and where in the request they sit. */
  invalid?: { error: ZodError; at: string };
  /** The one field at fault, by its path in the request. */
  field?: { path: string; message: string };
  /** A size limit rather than a structure one (the status says "too large" where the code allows it). */
  sizeLimit?: boolean;
}

export class DomainError<Code extends string = string> extends Error {
  constructor(
    readonly code: Code,
    message: string,
    readonly facts: DomainErrorFacts = {},
  ) {
    super(message);
  }
}

/**
 * A use case run by a job's step refusing for good: the step fails with `code` as its fault and is not retried
 * (activities/remote-failure.ts maps it to Temporal, beside the remote failures).
 */
export class StepRefused extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
