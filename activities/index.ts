// All activities of the worker, keyed by the provider id the definitions name; each step's records its journal lines.
import { Context } from '@temporalio/activity';
import {
  ACTIVITY_PROVIDERS,
  CANCEL_ACTIVITY,
  DIRECTORY_COVER_ACTIVITY,
  HEARTBEAT_EVERY_MS,
  JOURNAL_ACTIVITY,
} from '../contract/providers';
import type { OwedJournal } from '../contract/journal';
import { activityOutcomes } from '../platform/observability/metrics';
import type { ActivityDeps } from './deps';
import type { Clients } from '../integrations/clients';
import { agreementSign } from './gov-fr-agreement';
import { agreementRenew } from './gov-fr-agreement-renew';
import { directoryActivities } from './gov-fr-directory';
import { jobCancel } from './job-cancel';
import { journalled, journalledStatement, recheckingApproval, recordJournal, type StepActivity } from './journalled';
import { peppolActivities } from './peppol';
import { partyState } from './party-state';
import { webhookActivities } from './webhooks';

export type { ActivityDeps } from './deps';

/** The activities over clients built once by the worker (integrations/clients.ts createClients). */
export function createActivities(
  deps: ActivityDeps,
  clients: Clients,
): Record<string, (...args: never[]) => Promise<unknown>> {
  const webhooks = webhookActivities(deps, clients.webhooks);
  const directory = directoryActivities(deps, clients.annuaire);
  const peppol = peppolActivities(deps, clients);
  const step = journalled.bind(null, deps.db);
  // Remote steps may take minutes: their start is recorded at once, and they heartbeat (contract/providers.ts).
  const remote = <R>(activity: StepActivity<R>) => withHeartbeat(step(activity, { announced: true }));
  const providers: Record<string, (...args: never[]) => Promise<unknown>> = {
    'silo.state': journalledStatement(deps.db, partyState(deps)),
    'gov-fr.agreement.sign': journalledStatement(deps.db, agreementSign(deps)),
    'gov-fr.agreement.renew': agreementRenew(deps), // journals as sign does, or records the wait as not needed
    'gov-fr.directory.register': remote(directory['gov-fr.directory.register']),
    'gov-fr.directory.disable': remote(directory['gov-fr.directory.disable']),
    'gov-fr.directory.update': remote(directory['gov-fr.directory.update']),
    'peppol.register': remote(peppol['peppol.register']),
    'peppol.unregister': remote(peppol['peppol.unregister']),
    webhook: step(webhooks.webhook),
  };
  // The workflow's provider catalogue and the worker must agree, or steps would time out instead of failing.
  const missing = ACTIVITY_PROVIDERS.filter((p) => !providers[p]);
  if (missing.length) throw new Error(`no activity for provider(s) ${missing.join(', ')}`);
  const counting = Object.fromEntries(Object.entries(providers).map(([name, fn]) => [name, counted(name, fn)]));
  const journal = ({ jobId, journal: j }: { jobId: string; journal: OwedJournal }) =>
    recheckingApproval(() =>
      recordJournal(deps.db, jobId, {
        lines: j.owed ?? [],
        ...(j.status && { status: j.status }),
        requiresApproval: j.requiresApproval,
      }),
    );
  return {
    ...counting,
    [JOURNAL_ACTIVITY.name]: journal,
    [CANCEL_ACTIVITY.name]: jobCancel(deps),
    [DIRECTORY_COVER_ACTIVITY.name]: counted(
      DIRECTORY_COVER_ACTIVITY.name,
      withHeartbeat(directory['gov-fr.directory.cover']),
    ),
    webhookAttempt: counted('webhook.attempt', webhooks.webhookAttempt),
    webhookGiveUp: webhooks.webhookGiveUp,
  };
}

/**
 * Heartbeats while the activity runs, so that a worker that dies mid-step is noticed within the heartbeat
 * timeout (contract/providers.ts) instead of the whole start-to-close timeout.
 */
function withHeartbeat<A extends never[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    const ctx = Context.current();
    const timer = setInterval(() => ctx.heartbeat(), HEARTBEAT_EVERY_MS);
    try {
      return await fn(...args);
    } finally {
      clearInterval(timer);
    }
  };
}

/** Counts each attempt's outcome for /metrics. */
function counted<A extends never[], R>(provider: string, fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    try {
      const r = await fn(...args);
      activityOutcomes.inc({ provider, outcome: 'ok' });
      return r;
    } catch (err) {
      activityOutcomes.inc({ provider, outcome: 'failed' });
      throw err;
    }
  };
}
