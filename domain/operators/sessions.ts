// The review page's sessions: an operator signs in once with their credential, and the page then carries a cookie
// (HttpOnly, so no script of the page holds a secret) instead of a credential typed in every tab. A session ends
// after SESSION_IDLE_MS without a request, when signed out, or with its credential.
import type { Queryable } from '../../platform/store/db';
import { endSession, openSession, touchSession, type OperatorIdentity } from '../../platform/store/operators';

export const SESSION_COOKIE = 'pa_operator_session';
export const SESSION_IDLE_MS = 30 * 60_000;

export const signIn = (db: Queryable, operator: OperatorIdentity): Promise<string> =>
  openSession(db, operator.credentialId);

export const operatorOfSession = (db: Queryable, token: string) => touchSession(db, token, SESSION_IDLE_MS);

export const signOut = (db: Queryable, token: string) => endSession(db, token);
