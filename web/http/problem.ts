// RFC 9457 problem details: every error leaves the API as application/problem+json with a useful detail.
import { STATUS_CODES } from 'node:http';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { ZodError } from 'zod';
import { redactPath } from '../../platform/observability/logger';
import { ConflictError } from '../../platform/store/conflict';
import { DomainError, type DomainErrorFacts } from '../../domain/errors';
import { RemoteFailure } from '../../domain/remote-failure';
import { PROBLEM_CODES, statusesOf, type ProblemCode, type ProblemCodeName } from './problem-codes';

export interface FieldError {
  path: string;
  message: string;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};
/** The status's own name (RFC 9110), never a bare "Error". */
export const problemTitle = (status: number): string => TITLES[status] ?? STATUS_CODES[status] ?? `HTTP ${status}`;

export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly errors?: FieldError[],
    /** e.g. Retry-After on a 503 */
    readonly headers?: Record<string, string>,
    /** a stable reason (the `code` member), for clients that act on it or translate it */
    readonly code?: string,
  ) {
    super(detail);
  }
}

export const notFound = (what: string) => new HttpProblem(404, `${what} not found`, undefined, undefined, 'not-found');

/** A problem with its stable `code`. */
export const coded = (status: number, code: string, detail: string, headers?: Record<string, string>) =>
  new HttpProblem(status, detail, undefined, headers, code);

/**
 * The one mapping of the domain's refusals (and the store's conflicts) to problems: the status is the code's, from
 * the registry (web/http/problem-codes.ts); a size limit answers 413 where the code allows it.
 */
export function domainProblem(err: DomainError | ConflictError): HttpProblem {
  const facts: DomainErrorFacts = err instanceof DomainError ? err.facts : {};
  if (facts.invalid) return zodProblem(facts.invalid.error, facts.invalid.at);
  const known: ProblemCode | undefined = PROBLEM_CODES[err.code as ProblemCodeName];
  if (!known)
    return new HttpProblem(
      500,
      `internal error: the refusal code ${err.code} is not in the registry; it has been logged`,
      undefined,
      undefined,
      'internal',
    );
  const status = facts.sizeLimit && statusesOf(known).includes(413) ? 413 : known.status;
  const headers = facts.retryAfterS ? { 'retry-after': String(facts.retryAfterS) } : undefined;
  return new HttpProblem(status, err.message, facts.field && [facts.field], headers, err.code);
}

/** When to try a lookup again after a remote failure that named no delay: its own calls were already tried 3 times. */
const REMOTE_RETRY_AFTER_S = 5;

/** A remote system's failure met while answering (the API's directory lookups): 503 to retry later, 502 if it refused. */
export function remoteProblem(err: RemoteFailure): HttpProblem {
  if (!err.retryable)
    return coded(502, `${err.system}-refused`, `the ${SYSTEM_NAMES[err.system]} refused the lookup: ${err.message}`);
  // The remote's own Retry-After, else ours: a client is always told when to come back.
  const retryAfterS = err.retryAfterMs !== undefined ? Math.ceil(err.retryAfterMs / 1000) : REMOTE_RETRY_AFTER_S;
  const headers = { 'retry-after': String(retryAfterS) };
  return coded(
    503,
    `${err.system}-unavailable`,
    `the ${SYSTEM_NAMES[err.system]} is unavailable, try again later: ${err.message}`,
    headers,
  );
}

const SYSTEM_NAMES: Record<RemoteFailure['system'], string> = {
  annuaire: 'PPF Annuaire',
  sml: 'SML',
  directory: 'Peppol Directory',
  'public-register': "API Recherche d'entreprises",
};

/** Field errors listed in a problem: a body of thousands of bad values is told about its first ones (and the count). */
const MAX_LISTED_ERRORS = 100;
/** Unknown field names listed, and the characters shown of each. */
const MAX_LISTED_KEYS = 20;
const MAX_KEY_SHOWN = 100;
const listed = (keys: string[]) =>
  keys
    .slice(0, MAX_LISTED_KEYS)
    .map((k) => (k.length > MAX_KEY_SHOWN ? `${k.slice(0, MAX_KEY_SHOWN)}…` : k))
    .join(', ') + (keys.length > MAX_LISTED_KEYS ? ` and ${keys.length - MAX_LISTED_KEYS} more` : '');

/** The value at a zod issue's path, where `input` is what was checked. */
const valueAt = (input: unknown, path: PropertyKey[]): unknown =>
  path.reduce<unknown>(
    (v, k) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined),
    input,
  );

/** zod's names of the types a field expects, in the words of JSON. */
const EXPECTED_WORDS: Record<string, string> = { record: 'object', map: 'object', int: 'integer', bigint: 'integer' };

/** `input`: what was checked, to tell a field left out from one of the wrong type (whatever the schema's message). */
export function zodProblem(err: ZodError, where: string, input?: unknown): HttpProblem {
  const errors = err.issues.slice(0, MAX_LISTED_ERRORS).map((i) => ({
    path: [where, ...i.path.map(String)].join('.'),
    message:
      i.code === 'unrecognized_keys'
        ? `unknown field(s): ${listed(i.keys)}`
        : // A field left out reads as one, not as a type received ("must be a UUID", "expected string, received undefined").
          i.code === 'invalid_type' &&
            (/received undefined$/.test(i.message) || (input !== undefined && valueAt(input, i.path) === undefined))
          ? `required (${EXPECTED_WORDS[i.expected] ?? i.expected})`
          : i.message,
  }));
  const first = errors[0];
  const detail =
    `invalid ${where}: ${first ? `${first.path}: ${first.message}` : 'validation failed'}` +
    (err.issues.length > 1 ? ` (and ${err.issues.length - 1} more)` : '');
  return new HttpProblem(400, detail, errors, undefined, 'invalid-request');
}

/** The code of a problem raised without one: by its status (web/http/problem-codes.ts lists every code). */
const DEFAULT_CODES: Record<number, string> = {
  400: 'invalid-request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not-found',
  409: 'conflict',
  413: 'too-large',
  415: 'unsupported-media-type',
  422: 'unprocessable',
  429: 'rate-limited',
  500: 'internal',
  502: 'bad-gateway',
  503: 'unavailable',
};

/** `extensions`: further members (RFC 9457 §3.2), e.g. the `code` that says why, stable for clients to act on. */
export function sendProblem(
  res: Response,
  status: number,
  detail: string,
  errors?: FieldError[],
  extensions?: Record<string, unknown>,
) {
  res
    .status(status)
    .type('application/problem+json')
    .json({
      type: 'about:blank',
      title: problemTitle(status),
      status,
      detail,
      ...(errors && { errors }),
      code: DEFAULT_CODES[status] ?? `http-${status}`,
      ...extensions,
    });
}

export const routeNotFound: RequestHandler = (req, res) =>
  sendProblem(res, 404, `no route for ${req.method} ${req.path}`, undefined, { code: 'no-route' });

/** Body-parser errors are the client's; anything else unexpected is logged and answered 500. */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) return;
    if (err instanceof DomainError || err instanceof ConflictError) {
      const problem = domainProblem(err);
      if (problem.status === 500) log.error({ err, code: err.code }, 'refusal code missing from the problem registry');
      err = problem;
    }
    if (err instanceof RemoteFailure) err = remoteProblem(err);
    if (err instanceof HttpProblem) {
      if (err.headers) res.set(err.headers);
      return sendProblem(res, err.status, err.detail, err.errors, err.code ? { code: err.code } : undefined);
    }
    const type = (err as { type?: string }).type;
    if (type === 'entity.parse.failed')
      return sendProblem(res, 400, `malformed JSON body: ${(err as Error).message}`, undefined, {
        code: 'malformed-json',
      });
    if (type === 'entity.too.large') {
      const limit = (err as { limit?: number }).limit;
      return sendProblem(res, 413, `request body too large${limit ? `: at most ${limit} bytes` : ''}`, undefined, {
        code: 'too-large',
      });
    }
    if (type === 'encoding.unsupported' || type === 'charset.unsupported')
      return sendProblem(res, 415, (err as Error).message, undefined, { code: 'unsupported-media-type' });
    const status = (err as { status?: number }).status;
    if (typeof status === 'number' && status >= 400 && status < 500)
      return sendProblem(res, status, (err as Error).message);
    // Wizard paths carry a credential (the link's ref): never in the logs.
    log.error({ err, method: req.method, path: redactPath(req.originalUrl.split('?')[0]!) }, 'unhandled error');
    sendProblem(res, 500, 'internal error; it has been logged', undefined, { code: 'internal' });
  };
}
