// The Temporal Schedules of the recurring work: the nightly reconciliation and the jobs' housekeeping. Made (or
// brought in line with the settings) when an API process starts, so every deployment has exactly one of each;
// RECONCILE_CRON=off deletes the reconciliation's. A run is never started while the last one is still going
// (overlap: skip). Operators start a reconciliation at once through its Schedule (trigger).
import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptions,
  type ScheduleOptionsAction,
  type ScheduleSpec,
} from '@temporalio/client';
import type { Logger } from 'pino';
import { DomainError } from './errors';
import {
  RECONCILIATION_SCHEDULE_ID,
  RECONCILIATION_WORKFLOW_TYPE,
  type ReconciliationInput,
} from '../contract/reconciliation';
import { JOB_SWEEP_SCHEDULE_ID, JOB_SWEEP_WORKFLOW_TYPE } from '../contract/job-sweep';

export interface ScheduleDeps {
  temporal: Client;
  log: Logger;
  config: { RECONCILE_CRON: string; RECONCILE_TIMEZONE: string; TEMPORAL_TASK_QUEUE: string };
}

/** Makes both Schedules, each on its own: one that fails is logged, and the next start tries again. */
export async function ensureSchedules(deps: ScheduleDeps): Promise<void> {
  for (const [what, make] of [
    ['reconciliation', ensureReconciliationSchedule],
    ['job housekeeping', ensureJobSweepSchedule],
  ] as const)
    await make(deps).catch((err: unknown) =>
      deps.log.warn({ err }, `the ${what} schedule could not be made; the next start tries again`),
    );
}

/** Every 5 minutes: visibility queries whose cost grows with every workflow the server holds, for rare events. */
async function ensureJobSweepSchedule({ temporal, config }: ScheduleDeps): Promise<void> {
  await upsertSchedule(temporal, JOB_SWEEP_SCHEDULE_ID, {
    spec: { intervals: [{ every: '5 minutes' }] },
    action: {
      type: 'startWorkflow',
      workflowType: JOB_SWEEP_WORKFLOW_TYPE,
      workflowId: 'job-housekeeping',
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      staticSummary: 'Jobs whose workflow was ended in the UI closed; old parked runs asked to show WaitingFor',
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '5 minutes' },
  });
}

async function ensureReconciliationSchedule({ temporal, log, config }: ScheduleDeps): Promise<void> {
  const handle = temporal.schedule.getHandle(RECONCILIATION_SCHEDULE_ID);
  if (config.RECONCILE_CRON === 'off') {
    await handle.delete().catch((err: unknown) => {
      if (!(err instanceof ScheduleNotFoundError)) throw err;
    });
    return;
  }
  const args: [ReconciliationInput] = [{}];
  const action: ScheduleOptionsAction = {
    type: 'startWorkflow',
    workflowType: RECONCILIATION_WORKFLOW_TYPE,
    workflowId: 'reconciliation',
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    args,
    staticSummary: 'Nightly reconciliation: the PPF directory, the SML and our SMP against our records',
  };
  const spec = { cronExpressions: [config.RECONCILE_CRON], timezone: config.RECONCILE_TIMEZONE };
  const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' };
  if (await upsertSchedule(temporal, RECONCILIATION_SCHEDULE_ID, { spec, action, policies }))
    log.info({ cron: config.RECONCILE_CRON }, 'reconciliation schedule created');
}

/** Creates the Schedule, or updates it to these settings when it exists; true when created. */
async function upsertSchedule(
  temporal: Client,
  scheduleId: string,
  s: { spec: ScheduleSpec; action: ScheduleOptionsAction; policies: ScheduleOptions['policies'] },
): Promise<boolean> {
  try {
    await temporal.schedule.create({ scheduleId, ...s });
    return true;
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await temporal.schedule.getHandle(scheduleId).update((d) => ({ ...d, ...s }));
    return false;
  }
}

/**
 * Asks the Schedule for a run now (it skips it while one is going); false when there is no Schedule. A Temporal that
 * cannot be reached is a DomainError `temporal-unavailable` (503, try again).
 */
export async function triggerReconciliation(temporal: Client): Promise<boolean> {
  try {
    await temporal.withDeadline(Date.now() + 10_000, () =>
      temporal.schedule.getHandle(RECONCILIATION_SCHEDULE_ID).trigger(ScheduleOverlapPolicy.SKIP),
    );
    return true;
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return false;
    throw new DomainError('temporal-unavailable', `the Schedule could not be reached (${(err as Error).message})`, {
      retryAfterS: 5,
    });
  }
}
