// A reconciliation run's beginning and end: whether it only reports (a new deployment's first runs, or asked), the
// day it compares on and what its activities need to know of it; at the end, the findings no longer seen closed,
// the counts kept with the run.
import type { Db } from '../../platform/store/db';
import { closeGoneFindings, runFindingCounts } from '../../platform/store/drift-findings';
import {
  earlierRuns,
  failStaleRuns,
  finishedRunDays,
  finishRun,
  getRun,
  startRun,
  type RunView,
} from '../../platform/store/reconciliation-runs';
import { addDays, today } from '../directory/lines';
import type { ReconciliationSettings } from './ports';

export interface RunFacts {
  run: RunView;
  day: string;
  /** The earliest day searches reach: lines ended since show, with their end. */
  from: string;
  /** Lines we wrote after this may not show yet; undefined before two runs have finished. */
  pendingSince: Date | undefined;
}

export async function beginRun(
  db: Db,
  settings: ReconciliationSettings,
  runId: string,
  asked: { reportOnly?: boolean },
): Promise<RunView> {
  await failStaleRuns(db, runId);
  const known = await getRun(db, runId);
  if (known) return known;
  const nights = await finishedRunDays(db);
  return startRun(db, {
    id: runId,
    day: today(),
    reportOnly: asked.reportOnly === true || nights < settings.reportOnlyNights,
  });
}

export async function runFacts(db: Db, settings: ReconciliationSettings, runId: string): Promise<RunFacts> {
  const run = await getRun(db, runId);
  if (!run) throw new Error(`no reconciliation run ${runId}`);
  const { starts } = await earlierRuns(db, runId);
  return {
    run,
    day: run.day,
    from: addDays(run.day, -settings.lookbackDays),
    pendingSince: starts.length >= 2 ? starts[1] : undefined,
  };
}

/** Closes what no longer shows and keeps the counts with the run. */
export async function endRun(
  db: Db,
  runId: string,
  status: 'done' | 'failed',
  actions: Record<string, number>,
): Promise<RunView> {
  if (status === 'done') await closeGoneFindings(db, runId);
  await finishRun(db, runId, { status, counts: await runFindingCounts(db, runId), actions });
  return (await getRun(db, runId))!;
}
