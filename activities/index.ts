// All activities of the worker, keyed by the provider id the definitions name (plus the journal).
import { ACTIVITY_PROVIDERS } from '../workflows/providers';
import type { ActivityDeps } from './deps';
import { agreementSign } from './gov-fr-agreement';
import { directoryActivities } from './gov-fr-directory';
import { journalActivities } from './journal';
import { peppolActivities } from './peppol';
import { siloState } from './silo-state';

export type { ActivityDeps } from './deps';

export function createActivities(deps: ActivityDeps): Record<string, (...args: never[]) => Promise<unknown>> {
  const providers: Record<string, (...args: never[]) => Promise<unknown>> = {
    'silo.state': siloState(deps),
    'gov-fr.agreement.sign': agreementSign(deps),
    ...directoryActivities(deps),
    ...peppolActivities(deps),
  };
  // The workflow's provider catalogue and the worker must agree, or steps would time out instead of failing.
  const missing = ACTIVITY_PROVIDERS.filter((p) => !providers[p]);
  if (missing.length) throw new Error(`no activity for provider(s) ${missing.join(', ')}`);
  return { ...providers, ...journalActivities(deps) };
}
