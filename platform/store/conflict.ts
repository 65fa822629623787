// A request that conflicts with what is stored (an id taken, a state that forbids it): the API answers 409 with its
// code.

/** A request that conflicts with what is stored; `code` is its stable reason (web/http/problem-codes.ts). */
export class ConflictError extends Error {
  constructor(
    message: string,
    readonly code:
      'key-taken' | 'id-taken' | 'id-not-available' | 'job-running' | 'registration-running' | 'meta-ref-taken',
  ) {
    super(message);
  }
}
