// HTTP plumbing: every answer is JSON, an error is `{"erreur": …}` in French as the real API words its 400s; bodies
// are bounded so that a hostile client cannot make the simulator buffer without end.
import type http from 'node:http';

/** A refusal the server answers as `{erreur}` with its status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly erreur: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(erreur);
  }
}

export function send(res: http.ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) {
  if (body === undefined) return void res.writeHead(status, headers).end();
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

export const sendError = (res: http.ServerResponse, e: ApiError) =>
  send(res, e.status, { erreur: e.erreur }, e.headers);

/**
 * The body as text, refused (413) past `limit` bytes. The rest is still read and dropped, so that the client, still
 * sending, gets the answer rather than a reset connection (Node's requestTimeout bounds a body that never ends).
 */
export async function readText(req: http.IncomingMessage, limit = 1_000_000): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size <= limit) chunks.push(c);
  }
  if (size > limit) throw new ApiError(413, `corps de requête trop volumineux (au plus ${limit} octets)`);
  return Buffer.concat(chunks).toString('utf8');
}

/** A JSON body (any content type: the simulator's owner calls with curl). */
export function jsonBody(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw new ApiError(400, 'corps JSON attendu (JSON mal formé)');
  }
}

export function allow(method: string, where: string, ...methods: string[]) {
  if (!methods.includes(method))
    throw new ApiError(405, `méthode ${method} non permise sur ${where} (permises : ${methods.join(', ')})`, {
      allow: methods.join(', '),
    });
}
