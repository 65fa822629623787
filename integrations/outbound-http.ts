// Requests to the external systems (PPF Annuaire, SML, Peppol Directory) through undici's `request`: it costs the
// client a third of fetch's CPU per call (no WHATWG streams), and a registration makes four.
import http from 'node:http';
import { request, type Dispatcher } from 'undici';

export interface OutboundRequest {
  method: string;
  headers?: Record<string, string>;
  body?: string;
  /** For the whole exchange, the answer's body included. */
  timeoutMs: number;
  /** E.g. an Agent presenting our client certificate (mutual TLS). */
  dispatcher?: Dispatcher;
}

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
