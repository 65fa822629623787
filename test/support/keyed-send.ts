// A request as an API client sends it, with an Idempotency-Key or without, checked against the OpenAPI contract:
// for the idempotency suites.
import { contractViolation } from './contract';

export interface Answer {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

export interface SendOptions {
  /** the Idempotency-Key; none when null or absent */
  key?: string | null;
  /** none: an unauthenticated request */
  apiKey?: string;
  method?: string;
  baseUrl: string;
}

export async function send(path: string, body: unknown, opts: SendOptions): Promise<Answer> {
  const method = opts.method ?? 'POST';
  const headers: Record<string, string> = {};
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  if (opts.key !== null && opts.key !== undefined) headers['idempotency-key'] = opts.key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(opts.baseUrl + path, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* keep text */
  }
  const broken = contractViolation(method, path, res.status, res.headers.get('content-type'), parsed);
  if (broken) throw new Error(`contract: ${method} ${path} → ${res.status}: ${broken}\n${text.slice(0, 500)}`);
  return { status: res.status, body: parsed, text, headers: res.headers };
}

export const replayed = (a: Answer) => a.headers.get('idempotent-replayed');
