// Requests Node's HTTP parser refuses before any route sees them (a 20,000-character path, broken framing): Node
// answers those with a bare status and no body. This answers them as every other error, a problem with a code.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { problemTitle } from './problem';

const HEADER_OVERFLOW = 'HPE_HEADER_OVERFLOW';

export function answerMalformedRequests(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    // A peer that went away, or a socket already answered, gets nothing more.
    if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const [status, code, detail] =
      err.code === HEADER_OVERFLOW
        ? [
            431,
            'headers-too-large',
            'the request line and headers pass 16 KiB: shorten the path, the query or a header',
          ]
        : [400, 'malformed-http', `the request is not valid HTTP/1.1 (${err.code ?? 'parse error'})`];
    const body = JSON.stringify({ type: 'about:blank', title: problemTitle(status), status, code, detail });
    socket.end(
      `HTTP/1.1 ${status} ${problemTitle(status)}\r\ncontent-type: application/problem+json\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}
