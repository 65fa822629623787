// Requests to the external systems (PPF Annuaire, SML, Peppol Directory) through undici's `request`: it costs the
// client a third of fetch's CPU per call (no WHATWG streams), and a registration makes four.
//
// A call makes up to TRIES requests before it reports a failure: a step makes several calls and starts over from its
// first one on each of Temporal's retries, so a one-off 503 must not cost the whole step. Tried again at once: an
// answered 429 or 503 (the server did not do it) whose Retry-After, if any, is at most a second; a request with no
// answer (timeout, reset) only when it is idempotent. Longer waits and the rest go to the step's retry policy.
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { request, type Dispatcher } from 'undici';
import { parseRetryAfter } from './remote-failure';

export const TRIES = 3;
/** A Retry-After longer than this is not waited for within the call. */
const MAX_WAIT_IN_CALL_MS = 1_000;
/** Waits between tries when the server names none. */
const BACKOFF_MS = [200, 500];

export interface OutboundRequest {
  method: string;
  headers?: Record<string, string>;
  body?: string;
  /** For the whole exchange, the answer's body included. */
  timeoutMs: number;
  /** E.g. an Agent presenting our client certificate (mutual TLS). */
  dispatcher?: Dispatcher;
  /** Requests made at most (default TRIES; 1: no retry within the call). */
  tries?: number;
  /**
   * Whether sending it twice does no more than once, so that it may be sent again when no answer came. Default: by
   * method (GET, HEAD, PUT, DELETE, OPTIONS); a search sent as POST says so.
   */
  idempotent?: boolean;
}

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/** An answer whose body is read once; every caller reads, parses or discards it, so the connection is reused. */
export interface Answer {
  url: string;
  status: number;
  statusText: string;
  ok: boolean;
  header(name: string): string | null;
  text(): Promise<string>;
  /** Throws SyntaxError when the body is not JSON. */
  json(): Promise<unknown>;
  discard(): Promise<void>;
}

/** No answer: refused, reset, unknown host, or none within the timeout. */
export class TransportError extends Error {
  override readonly name = 'TransportError';
  constructor(readonly reason: string) {
    super(reason);
  }
}

function transportError(err: unknown, timer: AbortController): TransportError {
  const e = err as { code?: string; message?: string };
  if (timer.signal.aborted || e?.code === 'UND_ERR_CONNECT_TIMEOUT') return new TransportError('timed out');
  return new TransportError(e?.code ?? e?.message ?? String(err));
}

export async function send(url: string, o: OutboundRequest): Promise<Answer> {
  const tries = Math.max(1, o.tries ?? TRIES);
  const idempotent = o.idempotent ?? IDEMPOTENT_METHODS.has(o.method.toUpperCase());
  for (let n = 1; ; n++) {
    const backoff = BACKOFF_MS[Math.min(n - 1, BACKOFF_MS.length - 1)]!;
    let answer: Answer;
    try {
      answer = await sendOnce(url, o);
    } catch (err) {
      if (n >= tries || !idempotent || !(err instanceof TransportError)) throw err;
      await sleep(backoff);
      continue;
    }
    if (n >= tries || (answer.status !== 429 && answer.status !== 503)) return answer;
    const asked = parseRetryAfter(answer.header('retry-after'));
    if (asked !== undefined && asked > MAX_WAIT_IN_CALL_MS) return answer;
    await answer.discard().catch(() => {}); // read to its end: the connection is then reused
    await sleep(asked ?? backoff);
  }
}

async function sendOnce(url: string, o: OutboundRequest): Promise<Answer> {
  // undici's own head and body timeouts tick at a second at best and are not a budget for the whole exchange.
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(), o.timeoutMs);
  let res: Dispatcher.ResponseData;
  try {
    res = await request(url, {
      method: o.method as Dispatcher.HttpMethod,
      headers: o.headers,
      body: o.body,
      signal: timer.signal,
      ...(o.dispatcher && { dispatcher: o.dispatcher }),
    });
  } catch (err) {
    clearTimeout(timeout);
    throw transportError(err, timer);
  }
  const body = res.body;
  const reading = async <T>(read: () => Promise<T>): Promise<T> => {
    try {
      return await read();
    } catch (err) {
      throw err instanceof SyntaxError ? err : transportError(err, timer);
    } finally {
      clearTimeout(timeout);
    }
  };
  return {
    url,
    status: res.statusCode,
    statusText: http.STATUS_CODES[res.statusCode] ?? '',
    ok: res.statusCode >= 200 && res.statusCode <= 299,
    header(name) {
      const v = res.headers[name.toLowerCase()];
      return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
    },
    text: () => reading(() => body.text()),
    json: () => reading(() => body.json()),
    discard: () => reading(() => body.dump()),
  };
}
