// PostgreSQL cannot store U+0000 in text or jsonb: refuse it at the door rather than fail deep in the store.
import type { RequestHandler } from 'express';
import { HttpProblem } from './problem';

function findNul(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findNul(value[i], `${path}.${i}`);
      if (hit) return hit;
    }
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k.includes('\u0000')) return `${path}.${k.replaceAll('\u0000', '\\u0000')}`;
      const hit = findNul(v, `${path}.${k}`);
      if (hit) return hit;
    }
  }
  return undefined;
}

export const rejectNulCharacters: RequestHandler = (req, _res, next) => {
  const where = findNul(req.body, 'body') ?? findNul(req.query, 'query') ?? findNul(req.params, 'path');
  if (where) throw new HttpProblem(400, `${where}: the NUL character (U+0000) is not allowed`);
  next();
};
