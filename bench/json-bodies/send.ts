// Sends a body to a route with node:http, written to the socket as it is (fetch would copy it through web streams on
// the sender's event loop), the answer kept as bytes and never parsed whole.
import crypto from 'node:crypto';
import http from 'node:http';
import type { Route } from './routes';
import { operationFor } from '../../api/operations';

export interface Answer {
  status: number;
  type: string;
  detail: string;
}

/**
 * The API at `baseUrl`, called with `apiKey` (with `operator` on the operators' routes); POSTs carry an
 * Idempotency-Key unless `keyed` is false.
 */
export function send(
  api: { baseUrl: string; apiKey: string; operator?: string },
  route: Route,
  body: Uint8Array,
  keyed = route.method === 'POST',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${api.baseUrl}${route.path()}`,
      {
        method: route.method,
        headers: {
          authorization: `Bearer ${(operationFor(route.method, route.op)?.operator && api.operator) || api.apiKey}`,
          'content-type': route.type ?? 'application/json',
          'content-length': body.length,
          ...(keyed && { 'idempotency-key': crypto.randomUUID() }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8', 0, 2000);
          resolve({
            status: res.statusCode!,
            type: res.headers['content-type'] ?? '',
            detail: /"detail":"([^"]*)/.exec(text)?.[1] ?? '',
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
