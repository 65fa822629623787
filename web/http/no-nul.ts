// PostgreSQL cannot store U+0000 nor a lone UTF-16 surrogate in text or jsonb: refuse them at the door (400)
// rather than fail deep in the store (500). JSON nested deeper than MAX_JSON_DEPTH is refused here too: every later
// step that walks a value recursively (zod, JSON.stringify, jsonb) would otherwise overflow the stack (a 500).
// The walk below keeps its own stack, so no nesting can overflow it.
import type { RequestHandler } from 'express';
import { coded } from './problem';

/** Levels of arrays and objects a request value may have (`{"a":[1]}` has 2). */
export const MAX_JSON_DEPTH = 32;

const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const NUL_REASON = 'the NUL character (U+0000) and unpaired surrogates are not allowed';

/** A container being walked: where it is (for the message, built only on a refusal) and how far its walk got. */
interface Frame {
  node: object;
  keys: string[] | undefined; // undefined for arrays
  next: number;
  depth: number;
  parent?: Frame;
  key?: string | number;
}

const pathOf = (root: string, f: Frame | undefined, last?: string | number): string => {
  const keys: Array<string | number> = last === undefined ? [] : [last];
  for (; f?.parent; f = f.parent) keys.push(f.key!);
  return [root, ...keys.reverse()].join('.');
};

/**
 * The first place in `value` the store cannot keep, with the reason, or undefined. One pass, no allocation per
 * scalar: a 6 MB body of three million numbers is walked in tens of milliseconds.
 */
function findUnstorable(value: unknown, root: string, tally?: { chars: number }): string | undefined {
  if (typeof value === 'string') {
    if (tally) tally.chars += value.length;
    return UNSTORABLE.test(value) ? `${root}: ${NUL_REASON}` : undefined;
  }
  if (!value || typeof value !== 'object') return undefined;
  const open = (node: object, depth: number, parent?: Frame, key?: string | number): Frame | string => {
    const frame: Frame = {
      node,
      keys: Array.isArray(node) ? undefined : Object.keys(node),
      next: 0,
      depth,
      parent,
      key,
    };
    if (depth > MAX_JSON_DEPTH)
      return `${pathOf(root, frame)}: nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`;
    if (frame.keys?.some((k) => UNSTORABLE.test(k))) return `${pathOf(root, frame, '<key>')}: ${NUL_REASON}`;
    return frame;
  };
  const first = open(value, 1);
  if (typeof first === 'string') return first;
  const stack: Frame[] = [first];
  while (stack.length) {
    const f = stack[stack.length - 1]!;
    const length = f.keys ? f.keys.length : (f.node as unknown[]).length;
    if (f.next >= length) {
      stack.pop();
      continue;
    }
    const key = f.keys ? f.keys[f.next]! : f.next;
    const child = (f.node as Record<string | number, unknown>)[key];
    f.next++;
    if (typeof child === 'string') {
      if (tally) tally.chars += child.length;
      if (UNSTORABLE.test(child)) return `${pathOf(root, f, key)}: ${NUL_REASON}`;
    } else if (child && typeof child === 'object') {
      const opened = open(child, f.depth + 1, f, key);
      if (typeof opened === 'string') return opened;
      stack.push(opened);
    }
  }
  return undefined;
}

/** Throws the 400 when `value` holds a character the store cannot keep or nests too deep. */
export function assertStorable(value: unknown, where: string): void {
  const problem = findUnstorable(value, where);
  if (problem) throw coded(400, 'invalid-request', problem);
}

/** Characters of strings in a body past which what follows its check runs in a turn of the event loop of its own. */
const LARGE_BODY_CHARS = 1024 * 1024;

/**
 * After every JSON body parser: the body, query and path values checked before any handler reads them. After a large
 * body (an upload's megabytes of base64) the next step waits for the next turn of the event loop, so that the checks
 * before it (this one, the Idempotency-Key's hash, a store query that resolves without a turn) and the handler's own
 * work on the body do not add up into one block.
 */
export const rejectNulCharacters: RequestHandler = (req, _res, next) => {
  const tally = { chars: 0 };
  const problem =
    findUnstorable(req.body, 'body', tally) ?? findUnstorable(req.query, 'query') ?? findUnstorable(req.params, 'path');
  if (problem) throw coded(400, 'invalid-request', problem);
  if (tally.chars > LARGE_BODY_CHARS) setImmediate(next);
  else next();
};
