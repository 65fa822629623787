// Liveness and readiness (utils/v1, no key): live says the process answers; ready says it can do its work — the
// database and Temporal both reachable within a second. Load balancers and orchestrators poll these.
import { Router } from 'express';
import type { Client } from '@temporalio/client';
import type { Db } from '../platform/store/db';
import { ping } from '../platform/store/db';

const TIMEOUT_MS = 1_000;

async function probe(check: () => Promise<unknown>): Promise<'ok' | string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS)),
      ),
    ]);
    return 'ok';
  } catch (err) {
    return (err as Error).message.split('\n')[0] || 'failed';
  } finally {
    clearTimeout(timer);
  }
}

export function healthRouter(deps: { db: Db; temporal: Client }): Router {
  const r = Router();
  r.get('/health/live', (_req, res) => void res.set('cache-control', 'no-store').json({ status: 'ok' }));
  r.get('/health/ready', async (_req, res) => {
    const [database, temporal] = await Promise.all([
      probe(() => ping(deps.db)),
      probe(() =>
        deps.temporal.withDeadline(Date.now() + TIMEOUT_MS, () => deps.temporal.workflowService.getSystemInfo({})),
      ),
    ]);
    const ok = database === 'ok' && temporal === 'ok';
    res
      .status(ok ? 200 : 503)
      .set('cache-control', 'no-store')
      .json({ status: ok ? 'ok' : 'unavailable', checks: { database, temporal } });
  });
  return r;
}
