// Bearer API keys: each belongs to a workspace and carries scopes. Everything downstream is scoped to it.
import type { Request, RequestHandler, Response } from 'express';
import type { Db } from '../platform/store/db';
import { findApiKey, type ApiKeyIdentity, type Scope } from '../platform/store/workspaces';
import { coded, type HttpProblem } from '../web/http/problem';

/**
 * `refused`: what a failed authentication is answered (api/rate-limit.ts counts them per address: past its limit, a
 * 429 instead of the 401).
 */
export function authenticate(
  db: Db,
  refused: (req: Request, problem: HttpProblem) => Promise<HttpProblem> = async (_req, p) => p,
): RequestHandler {
  return async (req, res, next) => {
    const header = req.get('authorization') ?? '';
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    if (!m)
      throw await refused(req, coded(401, 'unauthenticated', 'missing API key: send "Authorization: Bearer <key>"'));
    const identity = await findApiKey(db, m[1]!);
    if (!identity) throw await refused(req, coded(401, 'unauthenticated', 'unknown or revoked API key'));
    res.locals.auth = identity;
    next();
  };
}

/**
 * Runs `step` once the request has passed its route's scope check, before the route itself (the Idempotency-Key:
 * a replay must never stand in for that check). Every authenticated route checks a scope.
 */
export function onceAuthorised(res: Response, step: RequestHandler): void {
  res.locals.onceAuthorised = step;
}

export function requireScope(scope: Scope): RequestHandler {
  return (req, res, next) => {
    if (!auth(res).scopes.includes(scope)) throw coded(403, 'forbidden', `this API key lacks the ${scope} scope`);
    const step = res.locals.onceAuthorised as RequestHandler | undefined;
    if (!step) return next();
    res.locals.onceAuthorised = undefined; // once, where a route checks scopes at two levels
    return step(req, res, next);
  };
}

export const auth = (res: Response): ApiKeyIdentity => res.locals.auth as ApiKeyIdentity;
