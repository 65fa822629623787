// The step providers this service knows, and how the workflow runs each one: the one registry of provider ids (a
// definition names its steps' providers by them; the worker registers an activity under each). Data only.
import type { ActivityOptions } from '@temporalio/common';
import type { Step } from './job';

/** Activities heartbeat this often (activities/index.ts); a worker silent for HEARTBEAT_TIMEOUT is deemed dead. */
export const HEARTBEAT_EVERY_MS = 3_000;
export const HEARTBEAT_TIMEOUT = '10s';

/** The activity the rescue runs first after a directory step failed (contract/activities.ts). */
export const DIRECTORY_COVER = 'gov-fr.directory.cover';

// Transport failures (5xx, 429, timeouts) are retried with backoff for an hour; business failures are thrown
// non-retryable. A time budget, not a number of attempts: retries timed by the server's Retry-After come quickly and
// a burst of 429s used 20 attempts up in 20 s (the chaos suite). At most a minute between tries: a step goes on
// soon after the outage ends.
const external: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '1 minute' },
};
// Steps in our own store finish in milliseconds: no heartbeat (a timer per step on the server); a dead worker's
// attempt is retried once its start-to-close timeout has passed.
const inStore: ActivityOptions = {
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
};

/**
 * The external systems whose steps share one pace across every worker: each has a task queue of its own beside the
 * workflows' (`<queue>-annuaire`, `<queue>-peppol`), polled with a task-queue activity rate limit that the server
 * enforces for all its workers together. The workflow schedules a paced step there; the step's priority (a campaign's
 * registrations lower) orders what waits.
 */
export const PACED_SYSTEMS = ['annuaire', 'peppol'] as const;
export type PacedSystem = (typeof PACED_SYSTEMS)[number];
export const pacedQueue = (workflowQueue: string, system: PacedSystem) => `${workflowQueue}-${system}`;

/**
 * A step's activity. `outside`: it acts on systems outside the store (the directory, Peppol), so the job can no
 * longer be cancelled; `rescuedBy`: after it fails, the rescue first runs that activity (contract/activities.ts);
 * `actsOnRegistered`: it changes a registered party's directory lines (a cancellation before it leaves the party
 * registered).
 */
interface ActivityProvider {
  kind: 'activity';
  options: ActivityOptions;
  outside?: true;
  /** It calls this system: it runs on its paced task queue. */
  paced?: PacedSystem;
  rescuedBy?: typeof DIRECTORY_COVER;
  actsOnRegistered?: true;
}
export type ProviderSpec = ActivityProvider | { kind: 'approval-wait' };

const inDirectory = {
  kind: 'activity',
  options: external,
  outside: true,
  paced: 'annuaire',
  rescuedBy: DIRECTORY_COVER,
} as const;

export const PROVIDERS = {
  'silo.state': { kind: 'activity', options: inStore },
  'gov-fr.agreement.sign': { kind: 'activity', options: inStore },
  'gov-fr.agreement.renew': { kind: 'activity', options: inStore },
  'gov-fr.agreement.wait.approval': { kind: 'approval-wait' },
  'gov-fr.directory.register': inDirectory,
  'gov-fr.directory.disable': { ...inDirectory, actsOnRegistered: true },
  'gov-fr.directory.update': { ...inDirectory, actsOnRegistered: true },
  'peppol.register': { kind: 'activity', options: external, outside: true, paced: 'peppol' },
  'peppol.unregister': { kind: 'activity', options: external, outside: true, paced: 'peppol' },
  webhook: { kind: 'activity', options: inStore }, // queues the delivery: a store write
} as const satisfies Record<string, ProviderSpec>;

export type ProviderId = keyof typeof PROVIDERS;
/** The providers a worker registers an activity for. */
export type ActivityProviderId = {
  [P in ProviderId]: (typeof PROVIDERS)[P]['kind'] extends 'activity' ? P : never;
}[ProviderId];

const registry: Readonly<Record<string, ProviderSpec>> = PROVIDERS;

/** The provider a definition's step names, if this service knows it (a custom definition may name any). */
export const providerOf = (id: string): ProviderSpec | undefined =>
  Object.hasOwn(registry, id) ? registry[id] : undefined;

export const isActivityProvider = (id: string): id is ActivityProviderId => providerOf(id)?.kind === 'activity';

export const isApprovalWait = (step: Step) => providerOf(step.provider)?.kind === 'approval-wait';

export const ACTIVITY_PROVIDERS = Object.keys(PROVIDERS).filter(isActivityProvider);

/** The providers whose steps change a registered party's directory lines. */
export const ACTS_ON_REGISTERED = ACTIVITY_PROVIDERS.filter((p) => {
  const spec = providerOf(p);
  return spec?.kind === 'activity' && spec.actsOnRegistered === true;
});
