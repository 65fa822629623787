// JSON bodies bounded in width as well as in bytes and depth. What a body costs the API's one thread grows with the
// number of values and keys in it more than with its bytes: 869 KB of an 80,000-key object held the event loop for
// half a second (parsed, walked for NUL characters, hashed for its Idempotency-Key, validated, copied, stored), while
// a long string costs little. So each body's values and keys are counted on its raw bytes, before JSON.parse builds
// anything, and a body with more than the limit is refused (413) at the cost of that scan: a millisecond or two.
import express from 'express';
import { MAX_JSON_DEPTH } from './no-nul';
import { coded } from './problem';

/**
 * The byte limit of the API's JSON bodies (silo, transform, peppol): twice the largest document stored (a party, a
 * meta value, a workflow definition: 64 KB each). Events, admin, decisions and the wizard's details take 16 KB,
 * uploads 6 MB (web/http/upload-json.ts).
 */
export const MAX_JSON_BODY = '128kb';

/**
 * Values and keys a JSON body may hold: every object, array, string, number, `true`, `false`, `null` and object key
 * counts one (`{"a":[1,2]}` holds 5). A party holds a few hundred, the largest value the service reads (100 invoicing
 * addresses) about 1,800. An object's key costs more than a value (parsed, hashed, copied by each check): with
 * MAX_JSON_BODY, the widest object a body can hold, 2,500 keys, keeps each JSON route within 50 ms of the event loop.
 */
export const MAX_JSON_VALUES = 5_000;

/** Byte classes of the scan, outside strings (0: any other byte). */
const QUOTE = 1;
const OPEN = 2; // [ {
const CLOSE = 3; // ] }
const SCALAR = 4; // the characters of numbers and of true, false, null
const CLASS = new Uint8Array(256);
CLASS[0x22] = QUOTE;
CLASS[0x5b] = OPEN;
CLASS[0x7b] = OPEN;
CLASS[0x5d] = CLOSE;
CLASS[0x7d] = CLOSE;
for (const c of '0123456789+-.eEtrufalsn') CLASS[c.charCodeAt(0)] = SCALAR;
const BACKSLASH = 0x5c;
const QUOTE_BYTE = 0x22;

/**
 * The values and keys in the JSON text `buf`, counted without parsing it (strings, keys included, containers and
 * scalar tokens), and how deep its arrays and objects nest. One pass over the bytes, a millisecond or two per
 * megabyte whatever their shape. Text that is not JSON gets some answer: the parser refuses it afterwards.
 */
export function scanJson(buf: Uint8Array): { values: number; depth: number } {
  let values = 0;
  let depth = 0;
  let deepest = 0;
  let inScalar = false;
  const n = buf.length;
  for (let i = 0; i < n; i++) {
    const cls = CLASS[buf[i]!];
    if (cls === SCALAR) {
      if (!inScalar) {
        inScalar = true;
        values++;
      }
      continue;
    }
    inScalar = false;
    if (cls === QUOTE) {
      // To the closing quote, over escapes (a backslash and the byte after it).
      for (i++; i < n; i++) {
        const c = buf[i];
        if (c === QUOTE_BYTE) break;
        if (c === BACKSLASH) i++;
      }
      values++;
    } else if (cls === OPEN) {
      values++;
      if (++depth > deepest) deepest = depth;
    } else if (cls === CLOSE) {
      depth--;
    }
  }
  return { values, depth: deepest };
}

export const countJsonValues = (buf: Uint8Array): number => scanJson(buf).values;

const fmt = (n: number) => n.toLocaleString('en');

/**
 * Values and keys of the small bodies (events, admin, decisions, the wizard's details: 16 KB): a dozen in a real one.
 * Their schemas do not all bound their arrays, and a validation error per element costs.
 */
export const MAX_SMALL_JSON_VALUES = 256;

/** The 413 of a body over `max` values and keys, naming the limit and what counts. */
export const tooManyValues = (max: number) =>
  coded(
    413,
    'too-large',
    `the JSON body holds more than ${fmt(max)} values and keys (each object, array, string, number, boolean, null ` +
      `and object key counts one): at most ${fmt(max)}`,
  );

/**
 * express.json with the values and keys counted on the raw body first (413 `too-large` naming the limit; 400 if it
 * also nests deeper than MAX_JSON_DEPTH), then parsed as before. MAX_JSON_BODY and MAX_JSON_VALUES unless told
 * otherwise.
 */
export function boundedJson(opts: { limit?: string; maxValues?: number; type?: string | string[] } = {}) {
  const max = opts.maxValues ?? MAX_JSON_VALUES;
  return express.json({
    limit: opts.limit ?? MAX_JSON_BODY,
    strict: true,
    ...(opts.type && { type: opts.type }),
    verify: (_req, _res, buf, encoding) => {
      // Counted on the bytes as UTF-8: a body in another charset (body-parser decodes UTF-16) could hide its structure.
      if (!/^utf-?8$/i.test(encoding))
        throw coded(415, 'unsupported-media-type', `unsupported charset "${encoding}": JSON bodies are UTF-8`);
      const { values, depth } = scanJson(buf);
      if (values <= max) return;
      // Too deep as well: refused for that, as a body within the count is by the check after parsing (no-nul.ts).
      if (depth > MAX_JSON_DEPTH)
        throw coded(400, 'invalid-request', `body: nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`);
      throw tooManyValues(max);
    },
  });
}

/** The values and keys of a parsed JSON value, counted as countJsonValues counts them in text; stops past `stopAbove`. */
export function countValues(value: unknown, stopAbove = Infinity): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (++count > stopAbove) return count;
    if (v && typeof v === 'object') {
      const children = Array.isArray(v) ? v : Object.values(v);
      if (!Array.isArray(v)) count += children.length; // the keys
      if (count + children.length > stopAbove) return count + children.length;
      for (const child of children) stack.push(child);
    }
  }
  return count;
}

/** Limits of a free-form JSON value a route stores (a meta value, a job's args, a workflow definition). */
export interface JsonLimits {
  values: number;
  bytes: number;
}

/**
 * The free-form JSON the API stores, per value: written to the store (jsonb) and read back on the API's thread, so
 * kept to half a body, yet above the largest value the service reads (100 invoicing addresses with their
 * routing codes: about 1,800 values and keys, 50 KB).
 */
export const STORED_JSON_LIMITS: JsonLimits = { values: 4_000, bytes: 64 * 1024 };

/**
 * Why `value` is over `limits`, naming them, or undefined: its values counted first (and no further than the limit),
 * then its bytes as compact JSON in UTF-8, as the store keeps it.
 */
export function jsonOverLimits(value: unknown, what: string, limits: JsonLimits): string | undefined {
  const rule = `${what} holds at most ${fmt(limits.values)} JSON values and keys and ${fmt(limits.bytes)} bytes of JSON`;
  if (countValues(value, limits.values) > limits.values)
    return `${rule}: this one has more than ${fmt(limits.values)} values and keys`;
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? '');
  return bytes > limits.bytes ? `${rule}: this one is ${fmt(bytes)} bytes` : undefined;
}
