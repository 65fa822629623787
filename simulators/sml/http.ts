// HTTP plumbing of the Peppol simulators (SML and Directory): body reading, JSON state, listen (fault injection:
// ../faults.ts).
import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;

/** An async handler whose failures never become unhandled rejections: a client that hung up (its request
 * "aborted" while read) is ignored, anything else answers 500 if nothing was sent yet. */
export function guarded(handler: Handler): Handler {
  return async (req, res) => {
    try {
      await handler(req, res);
    } catch (err) {
      if (req.destroyed || res.headersSent) return;
      sendText(res, 500, `simulator error: ${(err as Error).message}`);
    }
  };
}

export async function readBody(req: http.IncomingMessage, limit = 1_000_000): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function sendText(
  res: http.ServerResponse,
  status: number,
  body: string,
  type = 'text/plain; charset=utf-8',
): void {
  res.writeHead(status, { 'content-type': type });
  res.end(body);
}

export function loadState<T>(file: string | undefined): T | undefined {
  if (!file || !fs.existsSync(file)) return undefined;
  return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
}

/** Written to a temporary file then renamed, so a crash never leaves half a state file. */
export function saveState(file: string | undefined, state: unknown): void {
  if (!file) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(state, null, 2));
  fs.renameSync(`${file}.tmp`, file);
}

export async function listen(server: http.Server, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}

export function closeServer(server: http.Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections(); // keep-alive sockets would hold close() open
  return closed;
}
