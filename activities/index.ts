// All activities of the worker, keyed by the provider id the definitions name; each step's records its journal lines.
import type { JobActivities, StepActivity, StepResult } from '../contract/activities';
import { ACTIVITY_PROVIDERS, DIRECTORY_COVER, type ActivityProviderId } from '../contract/providers';
import type { WebhookActivities } from '../contract/webhook-delivery';
import type { ReconciliationActivities } from '../contract/reconciliation';
import type { JobSweepActivities } from '../contract/job-sweep';
import { activityOutcomes } from '../platform/observability/metrics';
import type { ActivityDeps } from './deps';
import type { Clients } from '../integrations/clients';
import { agreementSign } from './gov-fr-agreement';
import { agreementRenew } from './gov-fr-agreement-renew';
import { DIRECTORY_FACTS, directoryActivities } from './gov-fr-directory';
import { jobCancel } from './job-cancel';
import {
  journalled,
  journalledStatement,
  recheckingApproval,
  recordJournal,
  type StepActivity as StepActivityOf,
} from './journalled';
import { PEPPOL_FACTS, peppolActivities } from './peppol';
import { partyState } from './party-state';
import { webhookActivities } from './webhooks';
import { reconciliationActivities } from './reconciliation';
import { withHeartbeat } from './heartbeat';
import { jobSweepActivities } from './job-sweep';
import { campaignActivities } from './campaigns';
import type { CampaignActivities, CampaignRunActivities } from '../contract/campaigns';

export type { ActivityDeps } from './deps';

/** The activities over clients built once by the worker (integrations/clients.ts createClients). */
export function createActivities(
  deps: ActivityDeps,
  clients: Clients,
): JobActivities &
  WebhookActivities &
  ReconciliationActivities &
  JobSweepActivities &
  CampaignActivities &
  CampaignRunActivities {
  const webhooks = webhookActivities(deps, clients.webhooks);
  const directory = directoryActivities(deps, clients.annuaire);
  const peppol = peppolActivities(deps, clients);
  const step = <R extends StepResult>(activity: StepActivityOf<R>, facts?: readonly string[]) =>
    journalled(deps.db, activity, { facts });
  // Remote steps may take minutes: they heartbeat (contract/providers.ts). Those acting on a company's behalf read
  // what they need of its entry with their start (`facts`).
  const remote = <R extends StepResult>(activity: StepActivityOf<R>, facts?: readonly string[]) =>
    withHeartbeat(step(activity, facts));
  // One activity per provider of the registry (contract/providers.ts): the type says none is missing.
  const steps: Record<ActivityProviderId, StepActivity> = {
    'silo.state': journalledStatement(deps.db, partyState(deps)),
    'gov-fr.agreement.sign': journalledStatement(deps.db, agreementSign(deps)),
    'gov-fr.agreement.renew': agreementRenew(deps), // journals as sign does, or records the wait as not needed
    'gov-fr.directory.register': remote(directory.register, DIRECTORY_FACTS),
    'gov-fr.directory.disable': remote(directory.disable, DIRECTORY_FACTS),
    'gov-fr.directory.update': remote(directory.update, DIRECTORY_FACTS),
    'peppol.register': remote(peppol.register, PEPPOL_FACTS),
    'peppol.unregister': remote(peppol.unregister),
    webhook: step(webhooks.webhook),
  };
  for (const p of ACTIVITY_PROVIDERS) steps[p] = counted(p, toldTheWorkflow(steps[p]));
  return {
    ...steps,
    'job.journal': ({ jobId, journal: j }) =>
      recheckingApproval(() =>
        recordJournal(deps.db, jobId, {
          lines: j.owed ?? [],
          ...(j.status && { status: j.status }),
          requiresApproval: j.requiresApproval,
        }).then(() => undefined),
      ),
    'job.cancel': jobCancel(deps),
    [DIRECTORY_COVER]: counted(DIRECTORY_COVER, withHeartbeat(directory.cover)),
    webhookAttempt: counted('webhook.attempt', webhooks.webhookAttempt),
    webhookGiveUp: webhooks.webhookGiveUp,
    ...reconciliationActivities(deps, clients),
    ...jobSweepActivities(deps),
    ...campaignActivities(deps, clients),
  };
}

/**
 * What the workflow needs of a step's result, and nothing more: the rest (participant ids, mandate numbers, lines)
 * is in the store and the logs, and would be written into every history.
 */
function toldTheWorkflow(fn: StepActivity): StepActivity {
  return async (call) => {
    const { partyState, approvalNeeded, nextStepNotBefore } = await fn(call);
    return {
      ...(partyState !== undefined && { partyState }),
      ...(approvalNeeded !== undefined && { approvalNeeded }),
      ...(nextStepNotBefore !== undefined && { nextStepNotBefore }),
    };
  };
}

/** Counts each attempt's outcome for /metrics. */
function counted<A extends unknown[], R>(provider: string, fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
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
