// Days a job waits for, on durable timers shown in the Temporal UI: the day a company leaves us (the job's first
// step starts then), and the day a step's effect starts (the next step waits for it).
import { condition, setCurrentDetails, sleep } from '@temporalio/workflow';
import type { StepResult } from '../../contract/activities';
import type { Step } from '../../contract/job';
import { WaitingFor } from '../../contract/search-attributes';
import type { JobCalls } from './calls';
import type { JobContext } from './context';

/** A job asked to start later waits for its day, cancellable, nothing done meanwhile. */
export async function startDay(ctx: JobContext, calls: JobCalls, step: Step): Promise<void> {
  const at = ctx.job.notBefore;
  const ms = at ? Date.parse(at) - Date.now() : 0;
  if (!(ms > 0)) return;
  const day = at!.slice(0, 10);
  await waitsForDay(ctx, calls, day);
  setCurrentDetails(`Waiting until ${day} to start: ${ctx.stepDetails(step)} runs then`);
  await Promise.race([sleep(ms, { summary: `starts on ${day}` }), condition(() => ctx.cancelRequested)]);
}

/** A step whose effect starts later (directory lines from a future day): the next step waits for it. */
export async function effectDay(ctx: JobContext, calls: JobCalls, step: Step, result: StepResult): Promise<void> {
  const at = result.nextStepNotBefore;
  if (at === undefined) return;
  const ms = Date.parse(at) - Date.now();
  if (!(ms > 0)) return;
  const day = at.slice(0, 10);
  await waitsForDay(ctx, calls, day);
  setCurrentDetails(`${ctx.stepDetails(step)} done: it takes effect on ${day}; the next step waits until then`);
  await sleep(ms, { summary: `takes effect on ${day}` });
}

/** The job shows it waits for `day` (WAIT, waiting_for effective-date), until the next step's start sets it RUN. */
async function waitsForDay(ctx: JobContext, calls: JobCalls, day: string): Promise<void> {
  await calls.record({ status: 'WAIT', until: day });
  ctx.attributes.set(WaitingFor, 'effective-date');
  ctx.attributes.flush(); // operators find it by JobStatus and WaitingFor while it waits
}
