// PostgreSQL cannot store U+0000 nor a lone UTF-16 surrogate in text or jsonb: refuse them at the door (400)
// rather than fail deep in the store (500).
import type { RequestHandler } from 'express';
import { HttpProblem } from './problem';

const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function findNul(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findNul(value[i], `${path}.${i}`);
      if (hit) return hit;
    }
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (UNSTORABLE.test(k)) return `${path}.<key>`;
      const hit = findNul(v, `${path}.${k}`);
      if (hit) return hit;
    }
  }
  return undefined;
}

/** Throws the 400 when `value` holds a character the store cannot keep. */
export function assertStorable(value: unknown, where: string): void {
  const hit = findNul(value, where);
  if (hit) throw new HttpProblem(400, `${hit}: the NUL character (U+0000) and unpaired surrogates are not allowed`);
}

export const rejectNulCharacters: RequestHandler = (req, _res, next) => {
  const where = findNul(req.body, 'body') ?? findNul(req.query, 'query') ?? findNul(req.params, 'path');
  if (where) throw new HttpProblem(400, `${where}: the NUL character (U+0000) and unpaired surrogates are not allowed`);
  next();
};
