// Who calls: a workspace's API key (an integrator: everything downstream is scoped to its workspace), or one of the
// platform's operators, by their credential or by the review page's session cookie. A route serves one kind and
// says what it needs of it: a key's scope or an operator's role (web/http/route.ts).
import { parse as parseCookies } from 'cookie';
import type { Request, RequestHandler, Response } from 'express';
import type { Db } from '../platform/store/db';
import { findApiKey, type ApiKeyIdentity } from '../platform/store/workspaces';
import { CREDENTIAL_PREFIX, findCredential, type OperatorIdentity } from '../platform/store/operators';
import { operatorOfSession, SESSION_COOKIE } from '../domain/operators/sessions';
import type { Access } from '../web/http/route';
import { coded, type HttpProblem } from '../web/http/problem';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The review page's session token, when the request carries its cookie. */
export const sessionToken = (req: Request): string | undefined =>
  req.headers.cookie ? parseCookies(req.headers.cookie)[SESSION_COOKIE] || undefined : undefined;

/**
 * `refused`: what a failed authentication is answered (api/rate-limit.ts counts them per address: past its limit, a
 * 429 instead of the 401).
 */
export function authenticate(
  db: Db,
  refused: (req: Request, problem: HttpProblem) => Promise<HttpProblem> = async (_req, p) => p,
): RequestHandler {
  const refuse = async (req: Request, detail: string) => refused(req, coded(401, 'unauthenticated', detail));
  return async (req, res, next) => {
    const header = req.get('authorization');
    if (header !== undefined) {
      const m = /^Bearer\s+(\S+)$/i.exec(header);
      if (!m) throw await refuse(req, 'send "Authorization: Bearer <API key or operator credential>"');
      if (m[1]!.startsWith(CREDENTIAL_PREFIX)) {
        const operator = await findCredential(db, m[1]!);
        if (!operator) throw await refuse(req, 'unknown, revoked or expired operator credential');
        res.locals.operator = operator;
        return next();
      }
      const identity = await findApiKey(db, m[1]!);
      if (!identity) throw await refuse(req, 'unknown or revoked API key');
      res.locals.auth = identity;
      return next();
    }
    const token = sessionToken(req);
    if (!token) throw await refuse(req, 'missing API key: send "Authorization: Bearer <key>"');
    const operator = await operatorOfSession(db, token);
    if (!operator)
      throw await refuse(
        req,
        'your review session has ended (30 minutes without a request, signed out, or its credential revoked or expired): sign in again',
      );
    // SameSite=Strict keeps other sites' requests from carrying the cookie; a browser's Origin says it too.
    if (!SAFE_METHODS.has(req.method) && req.get('origin') !== undefined && !sameOrigin(req))
      throw coded(403, 'forbidden', 'a request carrying the review session must come from the review page itself');
    res.locals.operator = operator;
    next();
  };
}

function sameOrigin(req: Request): boolean {
  try {
    return new URL(req.get('origin')!).host === req.get('host');
  } catch {
    return false;
  }
}

/**
 * Runs `step` once the request has passed its route's access check, before the route itself (the Idempotency-Key:
 * a replay must never stand in for that check). Every authenticated route checks its access.
 */
export function onceAuthorised(res: Response, step: RequestHandler): void {
  res.locals.onceAuthorised = step;
}

/** What the caller must be: a workspace key with a scope, or an operator with a role ('any': any operator). */
export function requireAccess(access: Access): RequestHandler {
  return (req, res, next) => {
    const key = res.locals.auth as ApiKeyIdentity | undefined;
    const operator = res.locals.operator as OperatorIdentity | undefined;
    if ('scope' in access) {
      if (!key) throw coded(403, 'forbidden', "this operation is for an integrator's API key, not an operator");
      if (!key.scopes.includes(access.scope))
        throw coded(403, 'forbidden', `this API key lacks the ${access.scope} scope`);
    } else {
      if (!operator)
        throw coded(
          403,
          'forbidden',
          "only the platform's operators may do this (an operator credential, or the review page's session): an API key cannot",
        );
      if (access.operator !== 'any' && !operator.roles.includes(access.operator))
        throw coded(403, 'forbidden', `this operator lacks the ${access.operator} role`);
    }
    const step = res.locals.onceAuthorised as RequestHandler | undefined;
    if (!step) return next();
    res.locals.onceAuthorised = undefined; // once, where a route checks access at two levels
    return step(req, res, next);
  };
}

/** The calling API key, on a route that needs a scope (its access check let nothing else through). */
export const auth = (res: Response): ApiKeyIdentity => {
  const key = res.locals.auth as ApiKeyIdentity | undefined;
  if (!key) throw new Error('auth(): the route declares no scope, or its access is not checked');
  return key;
};

/** The calling operator, on a route that needs a role. */
export const operator = (res: Response): OperatorIdentity => {
  const op = res.locals.operator as OperatorIdentity | undefined;
  if (!op) throw new Error('operator(): the route declares no operator role, or its access is not checked');
  return op;
};

/** Who a request counts against (the rate limit): its API key or its operator's credential. */
export const principalId = (res: Response): string | undefined =>
  (res.locals.auth as ApiKeyIdentity | undefined)?.keyId ??
  (res.locals.operator as OperatorIdentity | undefined)?.credentialId;
