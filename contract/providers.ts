// The step providers this service knows, and how the workflow runs each one. Deterministic data only.
import type { ActivityOptions } from '@temporalio/workflow';
import type { Step } from './job';

export type ProviderSpec =
  /** `outside`: acts on systems outside the store (the directory, Peppol): a job can no longer be cancelled */
  { kind: 'activity'; options: ActivityOptions; outside?: true } | { kind: 'approval-wait' };

/** Activities heartbeat this often (activities/index.ts); a worker silent for HEARTBEAT_TIMEOUT is deemed dead. */
export const HEARTBEAT_EVERY_MS = 3_000;
const HEARTBEAT_TIMEOUT = '10s';

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

export const PROVIDERS: Record<string, ProviderSpec> = {
  'silo.state': { kind: 'activity', options: inStore },
  'gov-fr.agreement.sign': { kind: 'activity', options: inStore },
  'gov-fr.agreement.renew': { kind: 'activity', options: inStore },
  'gov-fr.agreement.wait.approval': { kind: 'approval-wait' },
  'gov-fr.directory.register': { kind: 'activity', options: external, outside: true },
  'gov-fr.directory.disable': { kind: 'activity', options: external, outside: true },
  'gov-fr.directory.update': { kind: 'activity', options: external, outside: true },
  'peppol.register': { kind: 'activity', options: external, outside: true },
  'peppol.unregister': { kind: 'activity', options: external, outside: true },
  webhook: { kind: 'activity', options: inStore }, // queues the delivery: a store write
};

/** Records a job's journal lines when no step's activity carries them (workflows/job/run.ts): until the store answers. */
export const JOURNAL_ACTIVITY = {
  name: 'job.journal',
  options: {
    startToCloseTimeout: '30s',
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute' },
  },
} as const;

/**
 * After a directory step failed, the rescue gives the SIREN's days left without a line back to the fictive platform
 * (a handover cut short: the 9998 line ended, ours never created). It retries for a day: the directory may be down.
 */
export const DIRECTORY_COVER_ACTIVITY = {
  name: 'gov-fr.directory.cover',
  options: {
    startToCloseTimeout: '2 minutes',
    heartbeatTimeout: HEARTBEAT_TIMEOUT,
    scheduleToCloseTimeout: '1 day',
    retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '10 minutes' },
  },
} as const;

/** Records a job's cancellation: the mandate voided, the wizard link revoked, the party cancelled, the job ended. */
export const CANCEL_ACTIVITY = { name: 'job.cancel', options: JOURNAL_ACTIVITY.options } as const;

export const isApprovalWait = (step: Step) => PROVIDERS[step.provider]?.kind === 'approval-wait';

/** Providers the worker must register an activity for. */
export const ACTIVITY_PROVIDERS = Object.keys(PROVIDERS).filter((p) => PROVIDERS[p]!.kind === 'activity');
