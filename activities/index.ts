// All activities of the worker, keyed by the provider id the definitions name (plus the journal).
import { ACTIVITY_PROVIDERS } from '../workflows/providers';
import type { ActivityDeps } from './deps';
import { agreementSign } from './gov-fr-agreement';
import { journalActivities } from './journal';
import { notAvailableYet } from './not-available';
import { siloState } from './silo-state';

export type { ActivityDeps } from './deps';

export function createActivities(deps: ActivityDeps): Record<string, (...args: never[]) => Promise<unknown>> {
  const providers: Record<string, (...args: never[]) => Promise<unknown>> = {
    'silo.state': siloState(deps),
    'gov-fr.agreement.sign': agreementSign(deps),
  };
  for (const p of ACTIVITY_PROVIDERS) providers[p] ??= notAvailableYet(p);
  return { ...providers, ...journalActivities(deps) };
}
