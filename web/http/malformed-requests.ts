// Requests Node's HTTP parser refuses before any route sees them (a 20,000-character path, broken framing), and
// requests that arrive too slowly: Node answers those with a bare status and no body. This answers them as every
// other error, a problem with a code.
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { problemTitle } from './problem';

const HEADER_OVERFLOW = 'HPE_HEADER_OVERFLOW';
const REQUEST_TIMEOUT = 'ERR_HTTP_REQUEST_TIMEOUT';

/**
 * How long a request may take to arrive: its headers, and the whole of it with its body (Node's own default waits
 * 300 s for a body, a connection held per slow sender). Past either, 408 and the connection is closed. Only the
 * arrival counts: a handler that takes longer to answer (`?wait=60`) is not cut short.
 */
export const REQUEST_TIMEOUT_MS = 30_000;
export const HEADERS_TIMEOUT_MS = 15_000;

const STREAMED = Symbol('streamed upload');

/**
 * A route that reads its body as it arrives and may take minutes over it (a campaign file) is spared the whole-request
 * limit; it bounds its own wait between two chunks of the body instead.
 */
export const streamedUpload = (req: object): void => void ((req as Record<symbol, boolean>)[STREAMED] = true);
const isStreamedUpload = (req: unknown) => !!(req as Record<symbol, boolean> | undefined)?.[STREAMED];

export interface RequestTimeouts {
  /** The whole request, body included (server.requestTimeout); default REQUEST_TIMEOUT_MS. */
  requestTimeoutMs?: number;
  /** The request line and headers (server.headersTimeout); default HEADERS_TIMEOUT_MS, at most requestTimeoutMs. */
  headersTimeoutMs?: number;
}

/**
 * Sets the server's timeouts for arriving requests and answers what Node refuses as problems. Call it before the
 * server listens, or in the same tick as `listen()` (as `app.listen(…)` then this): Node starts its timeout checks,
 * every `connectionsCheckingInterval`, when the server starts listening.
 */
export function answerMalformedRequests(server: Server, timeouts: RequestTimeouts = {}): void {
  const requestTimeout = timeouts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  server.requestTimeout = requestTimeout;
  server.headersTimeout = Math.min(timeouts.headersTimeoutMs ?? HEADERS_TIMEOUT_MS, requestTimeout);
  // Node checks for late requests every 30 s by default: a 30 s limit would take up to 60 s to apply.
  (server as { connectionsCheckingInterval?: number }).connectionsCheckingInterval = Math.max(
    10,
    Math.min(1000, Math.floor(server.headersTimeout / 4)),
  );
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    // A peer that went away, or a socket already answered, gets nothing more: nor one whose answer has begun.
    const inFlight = (socket as { _httpMessage?: ServerResponse })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) return void socket.destroy();
    if (err.code === REQUEST_TIMEOUT && isStreamedUpload(inFlight?.req)) return;
    const [status, code, detail] =
      err.code === HEADER_OVERFLOW
        ? [
            431,
            'headers-too-large',
            'the request line and headers pass 16 KiB: shorten the path, the query or a header',
          ]
        : err.code === REQUEST_TIMEOUT
          ? [
              408,
              'request-timeout',
              `the request did not arrive in time (its headers within ${server.headersTimeout / 1000} s, all of it within ${requestTimeout / 1000} s): send it again`,
            ]
          : [400, 'malformed-http', `the request is not valid HTTP/1.1 (${err.code ?? 'parse error'})`];
    const body = JSON.stringify({ type: 'about:blank', title: problemTitle(status), status, code, detail });
    if (inFlight && (inFlight.req as { complete?: boolean } | undefined)?.complete) {
      // The response under way is an earlier request's (pipelined), whose answer is being worked out: not this one's
      // to take. The late request gets nothing; the connection ends.
      return void socket.destroy();
    }
    if (inFlight) {
      // A request whose body was being read: answered through its response, so that its log line says 408 (and the
      // handler, which then sees the request aborted, answers nothing more); the connection is closed after it.
      inFlight.shouldKeepAlive = false;
      inFlight
        .writeHead(status, {
          'content-type': 'application/problem+json',
          'content-length': Buffer.byteLength(body),
          connection: 'close',
        })
        .end(body);
      return;
    }
    socket.end(
      `HTTP/1.1 ${status} ${problemTitle(status)}\r\ncontent-type: application/problem+json\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}
