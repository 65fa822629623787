// Signing in and out. The credential is sent once, to open the session, and its field emptied at once: from then
// on the session's cookie (HttpOnly) is the page's. A reload finds the session still open; any request the API
// refuses as unauthenticated (30 minutes idle, signed out elsewhere, credential revoked) shows the form again.
import { ApiError, answer } from '../../page-kit/api';
import { byId } from '../../page-kit/dom';
import { client, detailFor, errorKey, say, sayError, session } from './session';

let ended: () => void = () => undefined;
/** Whether this browser signed in last time (no secret): only then is the API asked, at load, about a session. */
const HINT = 'review-signed-in';

/** What the page does when its session ends under it (empty the queue and the submission on screen). */
export const onSessionEnded = (then: () => void): void => void (ended = then);

client.use({
  onResponse: ({ response }) => {
    if (response.status === 401 && session.operator) {
      session.operator = undefined;
      localStorage.removeItem(HINT);
      showSignedIn();
      ended();
      say('status', 'err-401', {}, 'error');
    }
  },
});

export function showSignedIn(): void {
  const op = session.operator;
  byId('login').hidden = op !== undefined;
  byId('whoami').hidden = op === undefined;
  if (op) say('operator-name', 'signedInAs', { name: op.name });
  else byId<HTMLInputElement>('credential').focus();
}

export async function signIn(credential: string): Promise<boolean> {
  try {
    const opened = await answer(
      client.POST('/apps/gov-fr/v1/review/session', { headers: { authorization: `Bearer ${credential}` } }),
    );
    session.operator = opened.operator;
    localStorage.setItem(HINT, '1');
    showSignedIn();
    return true;
  } catch (err) {
    const k = errorKey(err, 'signin');
    say('status', k, { status: err instanceof ApiError ? err.status : undefined }, 'error', detailFor(err, k));
    return false;
  }
}

/** Whether a session is open already (a reload, another tab), when this browser signed in before. */
export async function resumeSession(): Promise<boolean> {
  if (localStorage.getItem(HINT)) {
    try {
      session.operator = (await answer(client.GET('/apps/gov-fr/v1/review/session'))).operator;
    } catch (err) {
      session.operator = undefined;
      localStorage.removeItem(HINT);
      sayError('status', err); // a 401: ended meanwhile, and the page says so
    }
  }
  showSignedIn();
  return session.operator !== undefined;
}

export async function signOut(): Promise<void> {
  await answer(client.DELETE('/apps/gov-fr/v1/review/session')).catch(() => undefined);
  session.operator = undefined;
  localStorage.removeItem(HINT);
  showSignedIn();
  ended();
  say('status', 'signedOut');
}
