// Upload bodies are a few fields around one long base64 string, up to 6 MB. express.json held the event loop for a
// quarter of a second on one (the whole body made a string, parsed, copied again), and JSON.parse of megabytes of
// `{}` or numbers holds it as long. So this parser reads the body as it arrives — copied into one buffer a chunk at a
// time, its structure checked on the way, a body with more structure than an upload has refused before the rest is
// read — and parses it without ever making the whole text a string: JSON.parse reads the fields around the long
// strings (a few hundred bytes), each long string value is decoded from the buffer on its own, in a turn of the event
// loop of its own. It produces what express.json did: req.body, and the same statuses and codes on errors.
import zlib from 'node:zlib';
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { RequestHandler } from 'express';
import { HttpProblem, coded } from './problem';

/** Commas, colons, brackets and braces an upload body may hold: `{"view": "front", "data": "…"}` has a handful. */
const MAX_STRUCTURE = 64;
/** 6 MB: about 4 MB of binary in base64. */
const MAX_UPLOAD_BODY = 6 * 1024 * 1024;
/** A string value at least this long is decoded from the buffer on its own. */
const LONG_STRING = 1024;
/** What a body may hold besides its long string values: field names, short values, the structure. */
const MAX_REST = 64 * 1024;

const [QUOTE, BACKSLASH, COMMA, COLON, BRACKET, BRACE] = ['"', '\\', ',', ':', '[', '{'].map((c) => c.charCodeAt(0));
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** A string token of the body: bytes [start, end] are its quotes. */
interface Span {
  start: number;
  end: number;
  escaped: boolean;
  /** a raw control character (< U+0020) in it: not JSON */
  control: boolean;
  key: boolean;
}

const malformed = (detail: string) => coded(400, 'malformed-json', `malformed JSON body: ${detail}`);
const tooLarge = () => coded(413, 'too-large', `request body too large: at most ${MAX_UPLOAD_BODY} bytes`);
const tooStructured = () =>
  coded(
    400,
    'invalid-request',
    `an upload body is an object of a few fields around a base64 string: this one has more than ${MAX_STRUCTURE} separators`,
  );

/** The structure of the body, scanned a chunk at a time as it arrives. */
class Scan {
  separators = 0;
  readonly strings: Span[] = [];
  private open: Span | undefined;
  private escaping = false;
  /** the last string closed, until the next token says whether it was a key */
  private last: Span | undefined;

  /** Scans `bytes`, found at `offset` in the body; false once the body has more structure than an upload. */
  push(bytes: Uint8Array, offset: number): boolean {
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i]!;
      const open = this.open;
      if (open) {
        if (this.escaping) this.escaping = false;
        else if (c === BACKSLASH) this.escaping = open.escaped = true;
        else if (c === QUOTE) {
          open.end = offset + i;
          this.last = open;
          this.open = undefined;
        } else if (c < 0x20) open.control = true;
        continue;
      }
      if (isSpace(c)) continue;
      if (this.last) {
        this.last.key = c === COLON;
        this.last = undefined;
      }
      if (c === QUOTE) {
        // Valid JSON has a separator between two strings: more strings than the separators allow is no upload (a
        // body of empty strings would otherwise make millions of spans).
        if (this.strings.length > MAX_STRUCTURE) return false;
        this.open = { start: offset + i, end: -1, escaped: false, control: false, key: false };
        this.strings.push(this.open);
      } else if (c === COMMA || c === COLON || c === BRACKET || c === BRACE) {
        if (++this.separators > MAX_STRUCTURE) return false;
      }
    }
    return true;
  }
}

/** on-finished's test: the request was read to its end already (by an earlier parser), or cannot be. */
function isFinished(req: IncomingMessage): boolean {
  const socket = req.socket;
  return Boolean(
    (req as { upgrade?: boolean }).upgrade || !socket || !socket.readable || (req.complete && !req.readable),
  );
}

function bodyStream(req: IncomingMessage): Readable {
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  switch (encoding) {
    case 'identity':
      return req;
    case 'gzip':
      return req.pipe(zlib.createGunzip());
    case 'deflate':
      return req.pipe(zlib.createInflate());
    case 'br':
      return req.pipe(zlib.createBrotliDecompress());
    default:
      throw coded(415, 'unsupported-media-type', `unsupported content encoding "${encoding}"`);
  }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Reads the body into one buffer, scanning it on the way; the scan's refusal stops the reading. */
function readBody(req: IncomingMessage, stream: Readable): Promise<{ body: Buffer; scan: Scan }> {
  const declared = stream === req ? Number(req.headers['content-length']) : NaN;
  if (declared > MAX_UPLOAD_BODY) return Promise.reject(tooLarge());
  // Reserved, not touched: its pages are written (and cost) as the chunks arrive.
  const buffer = Buffer.allocUnsafe(Number.isInteger(declared) ? declared : MAX_UPLOAD_BODY);
  const scan = new Scan();
  let received = 0;
  return new Promise((resolve, reject) => {
    let ended = false;
    const done = (err?: HttpProblem) => {
      if (ended) return;
      ended = true;
      stream.off('data', onData).off('end', onEnd).off('error', onError);
      req.off('aborted', onAborted).off('close', onClose);
      if (err) return reject(err);
      if (Number.isInteger(declared) && received !== declared)
        return reject(coded(400, 'invalid-request', 'request size did not match content length'));
      resolve({ body: buffer.subarray(0, received), scan });
    };
    const onData = (chunk: Buffer) => {
      if (received + chunk.length > buffer.length) return done(tooLarge());
      chunk.copy(buffer, received);
      const within = scan.push(chunk, received);
      received += chunk.length;
      if (!within) done(tooStructured());
    };
    const onEnd = () => done();
    // Closed before its end: the client went away (a decompressed body ends after the request itself).
    const onClose = () => {
      if (!req.complete) done(coded(400, 'invalid-request', 'request aborted'));
    };
    const onError = (err: Error) =>
      done(err instanceof HttpProblem ? err : coded(400, 'invalid-request', `the body cannot be read: ${err.message}`));
    const onAborted = () => done(coded(400, 'invalid-request', 'request aborted'));
    stream.on('data', onData).on('end', onEnd).on('error', onError);
    req.on('aborted', onAborted).on('close', onClose);
  });
}

/** The value a long string's bytes stand for, decoded alone: with escapes, JSON.parse reads it in a turn of its own. */
async function decodeString(body: Buffer, s: Span): Promise<string> {
  if (s.control) throw malformed('a string holds a raw control character (U+0000 to U+001F): escape it');
  if (!s.escaped) return body.toString('utf8', s.start + 1, s.end);
  const text = body.toString('utf8', s.start, s.end + 1);
  await nextTurn();
  try {
    return JSON.parse(text) as string;
  } catch (err) {
    throw malformed((err as Error).message);
  }
}

/** The body as JSON.parse would read it, the long string values decoded on their own, each in a turn of its own. */
async function parse(body: Buffer, scan: Scan): Promise<unknown> {
  let from = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0; // a UTF-8 BOM, as express.json skips it
  const long = scan.strings.filter((s) => !s.key && s.end - s.start - 1 >= LONG_STRING);
  // The rest, each long string replaced by a marker no body can hold (a NUL, which the store refuses, and a nonce),
  // then parsed by JSON.parse.
  const nonce = crypto.randomBytes(12).toString('hex');
  const marker = (i: number) => `\u0000${nonce}:${i}`;
  let rest = '';
  long.forEach((s, i) => {
    rest += `${body.toString('utf8', from, s.start)}${JSON.stringify(marker(i))}`;
    from = s.end + 1;
  });
  if (body.length - from + rest.length > MAX_REST)
    throw coded(
      400,
      'invalid-request',
      `an upload body is an object of a few fields around a base64 string: besides its long string values it holds at most ${MAX_REST} bytes (field names, short values)`,
    );
  rest += body.toString('utf8', from);
  if (rest.length === 0) return {}; // as express.json: an empty body is {}
  const first = /^[\x20\x09\x0a\x0d]*(.?)/.exec(rest)![1];
  if (first !== '{' && first !== '[') throw malformed(`a JSON object or array is expected, not "${first}"`);
  let value: unknown;
  try {
    value = JSON.parse(rest);
  } catch (err) {
    throw malformed((err as Error).message);
  }
  if (long.length === 0) return value;
  const strings = new Map<string, string>();
  for (const [i, s] of long.entries()) {
    await nextTurn();
    strings.set(marker(i), await decodeString(body, s));
  }
  const put = (v: unknown): unknown => {
    if (typeof v === 'string') return strings.get(v) ?? v;
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      for (const k of Object.keys(o)) {
        const was = o[k];
        const now = put(was);
        if (now !== was) o[k] = now;
      }
    }
    return v;
  };
  return put(value);
}

/**
 * The JSON parser of the upload routes (identity, sign, agreement; the entry API's POSTs with an Idempotency-Key):
 * 6 MB, about 4 MB of binary in base64, at most MAX_STRUCTURE separators outside strings.
 */
export const uploadJson: RequestHandler = (req, _res, next) => {
  if (isFinished(req)) return next(); // read already, by the parser before the Idempotency-Key
  if (!Reflect.has(req, 'body')) req.body = undefined;
  if (!req.is('application/json')) return next();
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(req.get('content-type') ?? '')?.[1]?.toLowerCase() ?? 'utf-8';
  let stream: Readable;
  try {
    if (charset !== 'utf-8')
      throw coded(415, 'unsupported-media-type', `unsupported charset "${charset.toUpperCase()}"`);
    stream = bodyStream(req);
  } catch (err) {
    return next(err);
  }
  readBody(req, stream)
    .then(async ({ body, scan }) => {
      await nextTurn();
      req.body = await parse(body, scan);
      await nextTurn();
    })
    .then(
      () => next(),
      (err: unknown) => {
        // The rest of the body is read and dropped before the answer, as express.json does.
        if (stream !== req) {
          req.unpipe();
          stream.destroy();
        }
        if (isFinished(req)) return next(err);
        let answered = false;
        const answer = () => {
          if (!answered) next(err);
          answered = true;
        };
        req.on('end', answer).on('close', answer).resume();
      },
    );
};
