// apps/gov-fr/v1/review/session: the review page's session. An operator signs in once with their credential; the
// answer sets a cookie (HttpOnly, Secure, SameSite=Strict: no script of the page holds a secret, no other site's
// request carries it) that the page's requests then carry, until 30 minutes without one or a sign-out.
import type { CookieOptions, Response } from 'express';
import type { Db } from '../../platform/store/db';
import { SESSION_COOKIE, SESSION_IDLE_MS, signIn, signOut } from '../../domain/operators/sessions';
import { route } from '../../web/http/route';
import * as Operators from '../operator-schemas';
import { operator, sessionToken } from '../auth';

const PATH = '/apps/gov-fr/v1/review/session';
// Path=/: the page and every operation it calls; no Max-Age: gone with the browser, and ended by the store anyway.
const COOKIE: CookieOptions = { httpOnly: true, secure: true, sameSite: 'strict', path: '/' };

const sessionView = (res: Response) => {
  const op = operator(res);
  return {
    operator: { id: op.operatorId, name: op.name, roles: op.roles },
    idle_timeout_s: SESSION_IDLE_MS / 1000,
  };
};

type Deps = { db: Db };

export const reviewSessionRoutes = [
  route({
    method: 'post',
    path: PATH,
    operationId: 'signIn',
    summary: 'Sign in to the review page (operator)',
    description:
      'Opens a review session with the operator credential sent as `Authorization: Bearer opc_…`, and sets its cookie: the review page then sends no credential. The session ends after 30 minutes without a request, at sign-out, or with its credential.',
    operator: 'any',
    responses: { 201: Operators.reviewSession },
    handle: async ({ res }, { db }: Deps) => {
      res.cookie(SESSION_COOKIE, await signIn(db, operator(res)), COOKIE);
      return sessionView(res);
    },
  }),
  route({
    method: 'get',
    path: PATH,
    operationId: 'getSession',
    summary: 'Who is signed in (operator)',
    description: 'The operator the session or credential belongs to, and how long a session may stay idle.',
    operator: 'any',
    responses: { 200: Operators.reviewSession },
    handle: async ({ res }) => sessionView(res),
  }),
  route({
    method: 'delete',
    path: PATH,
    operationId: 'signOut',
    summary: 'Sign out of the review page (operator)',
    description: 'Ends the review session at once and clears its cookie.',
    operator: 'any',
    responses: { 204: null },
    handle: async ({ req, res }, { db }: Deps) => {
      const token = sessionToken(req);
      if (token) await signOut(db, token);
      res.clearCookie(SESSION_COOKIE, COOKIE);
    },
  }),
];
