// Bearer API keys: each belongs to a workspace and carries scopes. Everything downstream is scoped to it.
import type { RequestHandler, Response } from 'express';
import type { Db } from '../platform/store/db';
import { findApiKey, type ApiKeyIdentity, type Scope } from '../platform/store/workspaces';
import { coded } from '../web/http/problem';

export function authenticate(db: Db): RequestHandler {
  return async (req, res, next) => {
    const header = req.get('authorization') ?? '';
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    if (!m) throw coded(401, 'unauthenticated', 'missing API key: send "Authorization: Bearer <key>"');
    const identity = await findApiKey(db, m[1]!);
    if (!identity) throw coded(401, 'unauthenticated', 'unknown or revoked API key');
    res.locals.auth = identity;
    next();
  };
}

export function requireScope(scope: Scope): RequestHandler {
  return (_req, res, next) => {
    if (!auth(res).scopes.includes(scope)) throw coded(403, 'forbidden', `this API key lacks the ${scope} scope`);
    next();
  };
}

export const auth = (res: Response): ApiKeyIdentity => res.locals.auth as ApiKeyIdentity;
