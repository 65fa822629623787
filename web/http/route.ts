// A route declared once: its address, the scope it needs, the zod schemas it validates with, what the reference says
// of it and its handler, together. `mountRoutes` serves a list of them; the OpenAPI document is generated from the
// same list (api/openapi.ts), so what is served and what is documented cannot drift apart.
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import type { Scope } from '../../platform/store/workspaces';
import type { OperatorRole } from '../../platform/store/operators';
import type { ProblemCodeName } from './problem-codes';
import { body as parseBody, params as parseParams, query as parseQuery } from './validate';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** A success response: a JSON schema, a media type for other bodies, or null for none. */
export type SuccessResponse = z.ZodType | { mediaType: string } | null;

/** What the reference says of a route, beside its schemas. */
export interface RouteSpec {
  method: Method;
  /** The whole Express-style path (`/silo/v1/entries/:id`). */
  path: string;
  /** Short and stable: generated clients name their functions after it. */
  operationId: string;
  summary: string;
  description: string;
  /** The scope a workspace's API key needs. A route has this or `operator`, or neither when public. */
  scope?: Scope;
  /** The role one of the platform's operators needs ('any': any operator); no API key may call it. */
  operator?: OperatorRole | 'any';
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** The JSON body, validated before the handler runs (415 for another media type) unless `bodyParsing` says. */
  body?: z.ZodType;
  /**
   * `optional`: no body at all is `undefined` (a route whose body only adds detail); `handler`: the handler reads
   * it (other media types, a patch); the default, `required`, validates it as `body`.
   */
  bodyParsing?: 'required' | 'optional' | 'handler';
  /** The body as the reference shows it, when the handler checks more than `body` says (a French party). */
  documentedBody?: z.ZodType;
  /** The body in other media types the route accepts as well (or only, without `body`: a file it streams). */
  otherBodies?: Record<string, z.ZodType>;
  responses: Record<number, SuccessResponse>;
  /** Named request-body examples (by media type when the route reads several). */
  examples?: Record<string, unknown>;
  bodyExamples?: Record<string, Record<string, unknown>>;
  /** The codes of this route's own refusals (those every route of its kind answers are added by the reference). */
  errors?: readonly ProblemCodeName[];
  /**
   * Run after the route's guard and before its parsing: a body parser with the route's own limits, a check of the
   * path that answers its own refusal (our SMP's identifiers, api/peppol/smp.ts).
   */
  before?: RequestHandler[];
}

/** Who may call a route: a workspace key with a scope, or an operator with a role. */
export type Access = { scope: Scope } | { operator: OperatorRole | 'any' };

export const accessOf = (r: RouteSpec): Access | undefined =>
  r.scope ? { scope: r.scope } : r.operator ? { operator: r.operator } : undefined;

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteInput<P, Q, B> {
  params: Parsed<P>;
  query: Parsed<Q>;
  body: Parsed<B>;
  req: Request;
  res: Response;
}

/**
 * A handler answers its value as JSON with the route's first success status, or nothing: a 204 route, or one whose
 * handler answers through `res` (another status, a file it streams).
 */
export interface Route<D = unknown> extends RouteSpec {
  handle(input: RouteInput<z.ZodType, z.ZodType, z.ZodType>, deps: D): Promise<unknown>;
}

/** Declares a route; its handler's input is typed by its schemas. */
export function route<
  D,
  P extends z.ZodObject | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(
  spec: Omit<RouteSpec, 'params' | 'query' | 'body'> & {
    params?: P;
    query?: Q;
    body?: B;
    handle(input: RouteInput<P, Q, B>, deps: D): Promise<unknown>;
  },
): Route<D> {
  return spec as unknown as Route<D>;
}

const hasBody = (req: Request) =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

function readBody(r: RouteSpec, req: Request): unknown {
  if (!r.body || r.bodyParsing === 'handler') return undefined;
  if (r.bodyParsing === 'optional' && !hasBody(req)) return undefined;
  return parseBody(req, r.body);
}

const successStatus = (r: RouteSpec) => Math.min(...Object.keys(r.responses).map(Number));

/**
 * Serves `routes` on a router mounted at `base` (each route's path starts with it). `guard` gives what runs before a
 * route (its scope check, a link opened).
 */
export function mountRoutes<D>(
  base: string,
  routes: Route<D>[],
  deps: D,
  guard: (r: Route<D>) => RequestHandler[] = () => [],
): Router {
  const router = Router({ mergeParams: true });
  for (const r of routes) {
    if (!r.path.startsWith(base)) throw new Error(`${r.method} ${r.path} is not under ${base}`);
    const handler: RequestHandler = async (req, res) => {
      const input: RouteInput<z.ZodType, z.ZodType, z.ZodType> = {
        params: r.params && parseParams(req, r.params),
        query: r.query && parseQuery(req, r.query),
        body: readBody(r, req),
        req,
        res,
      };
      const out = await r.handle(input, deps);
      if (res.headersSent) return;
      const status = successStatus(r);
      // Nothing to answer: 204, or the handler answers through `res` (a file it streams).
      if (out === undefined) return void (status === 204 && res.status(status).end());
      res.status(status).json(out);
    };
    router[r.method](r.path.slice(base.length) || '/', ...guard(r), ...(r.before ?? []), handler);
  }
  return router;
}
