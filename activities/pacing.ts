// Requests to a system with a quota, spaced out within this worker process, and a throttled one (429 with
// Retry-After) tried again after the wait the server asked for, holding back the calls behind it too.
import { RemoteFailure } from '../domain/remote-failure';

/**
 * Spaces calls at least `gapMs` apart (across the worker's concurrent runs of these activities), and gives a
 * throttled call (429 with Retry-After) up to five more tries after the wait the server asked for.
 */
export function pacer(gapMs: number) {
  let next = 0;
  const slot = async () => {
    const now = Date.now();
    const at = Math.max(now, next);
    next = at + gapMs;
    if (at > now) await new Promise((r) => setTimeout(r, at - now));
  };
  return async <T>(call: () => Promise<T>): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      await slot();
      try {
        return await call();
      } catch (err) {
        const wait = err instanceof RemoteFailure && err.status === 429 ? err.retryAfterMs : undefined;
        if (wait === undefined || attempt >= 5) throw err;
        next = Math.max(next, Date.now() + wait);
      }
    }
  };
}
