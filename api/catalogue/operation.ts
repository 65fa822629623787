// What the catalogue says of one operation: its route, the zod schemas its router validates requests with and the
// schemas of its responses; and what the reference says of it beyond them.
import type { z } from 'zod';
import type { Scope } from '../../platform/store/workspaces';
import type { ProblemCodeName } from '../../web/http/problem-codes';

export interface Operation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Express-style path (`/silo/v1/entries/:id`). */
  path: string;
  summary: string;
  /** The scope a key needs; none for public operations. */
  scope?: Scope;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** The body in other media types the operation accepts as well (its `body` is application/json). */
  otherBodies?: Record<string, z.ZodType>;
  /** Success responses: a JSON schema, a media type for binary bodies, or null for no body. */
  responses: Record<number, z.ZodType | { mediaType: string } | null>;
}

export interface OperationDoc {
  description: string;
  /** Named request-body examples (by media type when the operation reads several). */
  examples?: Record<string, unknown>;
  bodyExamples?: Record<string, Record<string, unknown>>;
  /** The codes of this operation's own refusals. */
  errors?: ProblemCodeName[];
}
