// Idempotency-Key on the authenticated API's POSTs (issue 21, point 6; the convention of payment APIs, as Stripe's):
// a retry with the same key and the same request replays the first answer, marked `Idempotent-Replayed: true`, for 24
// hours. The same key on another request is 422; while the first request still runs, 409. Keys belong to the API key
// that sent them, and are looked at only once the request has passed its route's scope check (api/auth.ts): another
// key, whatever its scopes, never gets the first answer (some show a secret once). 5xx (and 429) answers are not
// kept: the retry runs again. The keys live in the store (platform/store/idempotency-keys.ts), so every API replica
// sees them.
import crypto from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { DataBox } from '../platform/crypto/data-box';
import type { Db } from '../platform/store/db';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseIdempotencyKey,
  sweepIdempotencyKeys,
  type KeyHolder,
  type StoredAnswer,
} from '../platform/store/idempotency-keys';
import { auth, onceAuthorised } from './auth';
import { sendProblem } from '../web/http/problem';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';
/** Printable ASCII, 1 to 255 characters (a UUID is the usual choice); Node has trimmed the header's ends. */
const VALID_KEY = /^[\x20-\x7E]{1,255}$/;
/** Headers of an answer that belong to it (the rest, security headers, rate limits, request id, are per request). */
const KEPT_HEADERS = ['content-type', 'content-disposition', 'location', 'content-location', 'etag', 'last-modified'];
/** Our POSTs answer small JSON; a larger answer is not kept (the key is released, a retry runs again). */
const MAX_KEPT_BODY = 1024 * 1024;
const SWEEP_EVERY_MS = 60_000;

/** The header as the OpenAPI document declares it on every authenticated POST. */
export const idempotencyKeyParameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: the same key with the same request (method, URL, JSON body) within 24 hours replays the first ' +
    'answer (status, body, Content-Type, Location) with `Idempotent-Replayed: true` instead of running again. The same ' +
    'key with another request: 422 (`code` `idempotency-key-reused`); while the first request runs: 409 ' +
    '(`idempotency-key-in-flight`). Keys are per API key: another key sending the same one runs its own request. 5xx and 429 answers are not kept. 1 to 255 printable ASCII ' +
    'characters, else 400 (`idempotency-key-invalid`); a UUID is a good key.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

const keyed = (req: Request) => req.method === 'POST' && req.get(IDEMPOTENCY_HEADER) !== undefined;

/**
 * For routers that parse bodies per route (apps/gov-fr/v1): with a key, `parsers` read the body here first, since the
 * request's hash needs it; the route's own parser then finds the body read and leaves it as it is.
 */
export const parsedWhenKeyed = (...parsers: RequestHandler[]): RequestHandler[] =>
  parsers.map((parse) => (req, res, next) => (keyed(req) ? parse(req, res, next) : next()));

/**
 * What identifies a request under its key: method, URL (query included) and the parsed body as canonical JSON (key
 * order and whitespace do not matter; the handlers see nothing else of a body).
 */
export function requestSha256(method: string, url: string, body: unknown): string {
  // The text is JSON.stringify's with each object's keys sorted, as an object built from its sorted entries holds
  // them (array indices first, in numeric order), so that keys claimed before still match. It is written out in one
  // walk rather than by a replacer copying every object (0.4 s for an object of 80,000 keys), and a long string (an
  // upload's base64) goes to the hash in slices, never copied whole.
  const hash = crypto.createHash('sha256').update(`${method} ${url}\n`);
  const SLICE = 64 * 1024;
  const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
  const isIndex = (k: string) => /^(?:0|[1-9]\d{0,9})$/.test(k) && Number(k) < 4294967295;
  let out = '';
  const longString = (v: string) => {
    hash.update(`${out}"`);
    out = '';
    const plain = !NEEDS_ESCAPE.test(v);
    let at = 0;
    while (at < v.length) {
      let end = Math.min(at + SLICE, v.length);
      const last = v.charCodeAt(end - 1);
      if (end < v.length && last >= 0xd800 && last <= 0xdbff) end--; // a surrogate pair stays whole
      hash.update(plain ? v.slice(at, end) : JSON.stringify(v.slice(at, end)).slice(1, -1));
      at = end;
    }
    out = '"';
  };
  const write = (key: string, value: unknown): boolean => {
    const toJSON = (value as { toJSON?: unknown } | null)?.toJSON;
    const v = typeof toJSON === 'function' ? (toJSON as (k: string) => unknown).call(value, key) : value;
    if (typeof v === 'string' && v.length > SLICE) return (longString(v), true);
    if (v === null || typeof v !== 'object') {
      const text = JSON.stringify(v);
      if (text === undefined) return false;
      out += text;
      return true;
    }
    if (Array.isArray(v)) {
      out += '[';
      for (let i = 0; i < v.length; i++) {
        if (i) out += ',';
        if (!write(String(i), v[i])) out += 'null';
      }
      out += ']';
      return true;
    }
    const keys = Object.keys(v);
    let indices = 0;
    while (indices < keys.length && isIndex(keys[indices]!)) indices++;
    const named = keys.slice(indices).sort();
    out += '{';
    let first = true;
    for (const k of indices ? [...keys.slice(0, indices), ...named] : named) {
      const before = out;
      out += `${first ? '' : ','}${JSON.stringify(k)}:`;
      if (write(k, (v as Record<string, unknown>)[k])) first = false;
      else out = before; // undefined, a function: left out, as JSON.stringify leaves them
    }
    out += '}';
    return true;
  };
  write('', body);
  return hash.update(out).digest('hex');
}

const bodyContext = (holder: KeyHolder, key: string) => `idempotency:${holder.apiKeyId}:${key}`;

/**
 * After authentication and the body parser, before the router: a keyed request is handled once its route's scope
 * check has passed (onceAuthorised). A request is known by its parsed body: a route that reads a body of another
 * type, which the JSON parser leaves unread, needs that body parsed before this runs.
 */
export function idempotency(deps: { db: Db; box: DataBox; log: Logger }): RequestHandler {
  const handle = keyedRequest(deps);
  return (req, res, next) => {
    // An operator's requests keep no answers: a decision is claimed once, a repeated one is answered 409 `decided`.
    if (keyed(req) && res.locals.auth) onceAuthorised(res, handle);
    next();
  };
}

function keyedRequest(deps: { db: Db; box: DataBox; log: Logger }): RequestHandler {
  let lastSweep = 0;
  return async (req, res, next) => {
    const key = req.get(IDEMPOTENCY_HEADER)!;
    if (!VALID_KEY.test(key)) {
      return sendProblem(
        res,
        400,
        'the Idempotency-Key header must be 1 to 255 printable ASCII characters',
        undefined,
        { code: 'idempotency-key-invalid' },
      );
    }
    if (Date.now() - lastSweep > SWEEP_EVERY_MS) {
      lastSweep = Date.now();
      sweepIdempotencyKeys(deps.db).catch((err) => deps.log.warn({ err }, 'could not sweep expired idempotency keys'));
    }
    const holder: KeyHolder = { workspaceId: auth(res).workspaceId, apiKeyId: auth(res).keyId };
    const claimed = await claimIdempotencyKey(
      deps.db,
      holder,
      key,
      requestSha256(req.method, req.originalUrl, req.body),
    );
    switch (claimed.outcome) {
      case 'reused':
        return sendProblem(
          res,
          422,
          'this Idempotency-Key was used for another request (method, URL or body): use a new key for a new request',
          undefined,
          { code: 'idempotency-key-reused' },
        );
      case 'in-flight':
        return sendProblem(
          res,
          409,
          'a request with this Idempotency-Key is still being processed: retry once it has been answered',
          undefined,
          { code: 'idempotency-key-in-flight' },
        );
      case 'replay': {
        const { status, headers, bodySealed } = claimed.answer;
        res.status(status).set(headers).set(REPLAYED_HEADER, 'true');
        return void res.end(deps.box.open(bodySealed, bodyContext(holder, key)));
      }
    }
    const { claim } = claimed;
    onAnswer(
      res,
      async (answer) => {
        if (answer.body === undefined)
          deps.log.warn(
            { status: answer.status },
            'an answer too large to keep for its idempotency key: the key is released',
          );
        const kept = answer.status < 500 && answer.status !== 429 && answer.body !== undefined;
        if (!kept) return releaseIdempotencyKey(deps.db, holder, key, claim);
        const stored: StoredAnswer = {
          status: answer.status,
          headers: answer.headers,
          bodySealed: deps.box.seal(answer.body!, bodyContext(holder, key)),
        };
        if (!(await completeIdempotencyKey(deps.db, holder, key, claim, stored))) {
          deps.log.warn({ status: answer.status }, 'an idempotency key was taken over before its request was answered');
        }
      },
      deps.log,
    );
    next();
  };
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  /** Undefined when larger than MAX_KEPT_BODY. */
  body: Buffer | undefined;
}

const toBuffer = (chunk: unknown, encoding: unknown): Buffer =>
  Buffer.isBuffer(chunk)
    ? chunk
    : typeof chunk === 'string'
      ? Buffer.from(chunk, (typeof encoding === 'string' ? encoding : 'utf8') as BufferEncoding)
      : Buffer.from(chunk as Uint8Array);

/**
 * Calls `keep` with the answer once the handler ends the response, and lets the response go only after it: a client
 * that has its answer finds it kept, so its retry replays rather than runs again (or gets a 409). The answer is kept
 * even when the client has left meanwhile: that is when it will retry.
 */
function onAnswer(res: Response, keep: (answer: Answer) => Promise<void>, log: Logger): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const collect = (chunk: unknown, encoding: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const b = toBuffer(chunk, encoding);
    size += b.length;
    if (size <= MAX_KEPT_BODY) chunks.push(b);
  };
  const write = res.write;
  const end = res.end;
  let ended = false;
  res.write = function (this: Response, ...args: unknown[]) {
    collect(args[0], args[1]);
    return (write as (...a: unknown[]) => boolean).apply(this, args);
  } as Response['write'];
  res.end = function (this: Response, ...args: unknown[]) {
    if (ended) return this; // a second end (an error after the answer) would not be sent anyway
    ended = true;
    collect(args[0], args[1]);
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const v = this.getHeader(name);
      if (v !== undefined) headers[name] = String(v);
    }
    keep({ status: this.statusCode, headers, body: size <= MAX_KEPT_BODY ? Buffer.concat(chunks) : undefined })
      .catch((err) => log.error({ err }, 'could not keep the answer of an idempotency key'))
      .finally(() => (end as (...a: unknown[]) => unknown).apply(this, args));
    return this;
  } as Response['end'];
}
