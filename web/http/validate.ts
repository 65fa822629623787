// zod validation of requests: failures become 400 problems listing each field.
import type { Request } from 'express';
import type { z } from 'zod';
import { assertStorable } from './no-nul';
import { coded, zodProblem } from './problem';

function check<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  // Path and query values reach SQL too (a key lookup with %00 in it): the same rule as for bodies.
  assertStorable(value, where);
  const r = schema.safeParse(value);
  if (!r.success) throw zodProblem(r.error, where, value);
  return r.data;
}

export function body<S extends z.ZodType>(req: Request, schema: S): z.output<S> {
  if (!req.is('application/json')) {
    throw coded(
      415,
      'unsupported-media-type',
      `send the body as application/json${req.method === 'PATCH' ? ' (or a patch as application/merge-patch+json or application/json-patch+json)' : ''}`,
    );
  }
  return check(schema, req.body, 'body');
}

export const query = <S extends z.ZodType>(req: Request, schema: S): z.output<S> => check(schema, req.query, 'query');
export const params = <S extends z.ZodType>(req: Request, schema: S): z.output<S> => check(schema, req.params, 'path');
