// A deploy under Worker Versioning, as the README describes it: while registrations are parked at the signer, at
// the operator's decision and at a start day 300 days out (after their directory step), and an unregistration at
// its leaving day 300 days out, a next build whose registration adds an activity before the directory step is made
// current and the first build's worker stops. Every run goes on on the next build: those before the directory step
// run the new activity, the one past it replays its history without it (patched()), and all that can end do. The
// negative control: without patched(), the history of the run past the directory step (and a recorded one) does not
// replay on the next build.
import path from 'node:path';
import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporalWorkflowId } from '../../domain/jobs/jobs';
import { UNREGISTRATION_WORKFLOW_ID } from '../../domain/jobs/builtins';
import { bundleWorkflowsFrom, createWorker, type VersionedWorker } from '../../worker/create-worker';
import { currentBuild, makeCurrent } from '../../worker/versioning';
import { log, startHarness, type WorkerHarness } from '../support/harness';
import { jobWhen } from '../support/jobs';
import { approve, newParty, register, signInApp, startRegistration } from '../support/registration';

const NEXT = 'next-build';
const fixtures = path.join(__dirname, 'fixtures', 'next-build');
const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
const probed = new Set<string>(); // the jobs whose registration ran the next build's added activity

let h: WorkerHarness;
let next: VersionedWorker | undefined;
let nextRunning: Promise<void> | undefined;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  if (next?.worker.getState() === 'RUNNING') next.worker.shutdown();
  await nextRunning;
  await h.close();
});

type History = temporal.api.history.v1.IHistory;
const history = (jobId: string) => h.client.workflow.getHandle(temporalWorkflowId(jobId)).fetchHistory();
/** The build of each workflow task the run completed, in order. */
const builds = (hist: History) =>
  (hist.events ?? []).flatMap((e) => {
    const a = e.workflowTaskCompletedEventAttributes;
    return a ? [a.deploymentVersion?.buildId ?? a.workerVersion?.buildId ?? 'unversioned'] : [];
  });
const activities = (hist: History) =>
  (hist.events ?? []).flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
const submitted = async (entryId: string) =>
  expect
    .poll(async () => (await h.api('GET', `/silo/v1/entries/${entryId}`)).body.state, { timeout: 15_000 })
    .toBe('submitted');

describe('a deploy under Worker Versioning', () => {
  it('moves every parked run to the next build, which runs its new activity only where the run has not passed it', async () => {
    const deployment = { namespace: 'default', deploymentName: h.config.TEMPORAL_DEPLOYMENT_NAME };
    const first = h.buildId;
    expect(await currentBuild(h.nativeConnection, deployment)).toBe(first);

    // On the first build: one registration to its end, and the parked runs.
    const done = await newParty(h);
    const doneJob = (await register(h, done)).id as string;
    const atSigner = await newParty(h);
    const atSignerJob = await startRegistration(h, atSigner);
    const atDecision = await newParty(h);
    const atDecisionJob = await startRegistration(h, atDecision);
    const atStartDay = await newParty(h);
    const addresses = { start: day(300), addresses: [{}] };
    expect(
      (await h.api('PUT', `/silo/v1/entries/${atStartDay}/meta/fr-invoicing-addresses`, { value: addresses })).status,
    ).toBe(200);
    const atStartDayJob = await startRegistration(h, atStartDay);
    await jobWhen(h, atDecisionJob, ['WAIT']);
    await signInApp(h, atDecision);
    await submitted(atDecision);
    await jobWhen(h, atStartDayJob, ['WAIT']);
    await signInApp(h, atStartDay);
    await submitted(atStartDay);
    await approve(h, atStartDay);
    await expect
      .poll(async () => (await h.api('GET', `/transform/v1/jobs/${atStartDayJob}`)).body, { timeout: 30_000 })
      .toMatchObject({ status: 'WAIT', waiting_for: 'effective-date', effective_on: day(300) });
    const leaving = await h.api('POST', '/transform/v1/jobs', {
      workflow_id: UNREGISTRATION_WORKFLOW_ID,
      silo_entry_id: done,
      args: { leave_on: day(300) },
    });
    expect(leaving.status, JSON.stringify(leaving.body)).toBe(202);
    const leavingJob = leaving.body.id as string;
    await expect
      .poll(async () => (await h.api('GET', `/transform/v1/jobs/${leavingJob}`)).body.waiting_for, { timeout: 15_000 })
      .toBe('effective-date');
    await jobWhen(h, atSignerJob, ['WAIT']);
    const parkedAtStartDay = await history(atStartDayJob);

    // The deploy: the next build's worker, made current; the first build's stopped.
    next = await createWorker({
      connection: h.nativeConnection,
      namespace: 'default',
      taskQueue: h.taskQueue,
      deps: { db: h.db, log, config: { ...h.config, WORKER_BUILD_ID: NEXT } },
      workflowBundle: await bundleWorkflowsFrom(path.join(fixtures, 'guarded.ts')),
      activities: { versioningProbe: async (jobId: string) => void probed.add(jobId) },
    });
    nextRunning = next.worker.run();
    await makeCurrent(h.nativeConnection, { ...deployment, buildId: NEXT });
    await h.stopWorker();

    // Every parked run goes on, on the next build.
    await signInApp(h, atSigner);
    await submitted(atSigner);
    await approve(h, atSigner);
    await approve(h, atDecision);
    const cancel = await h.api('POST', `/transform/v1/jobs/${leavingJob}/cancel`, { reason: 'the company stays' });
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    await h.client.workflow.getHandle(temporalWorkflowId(atStartDayJob)).signal('wake'); // a task, nothing more
    const after = await newParty(h);
    const afterJob = (await register(h, after)).id as string;
    for (const job of [atSignerJob, atDecisionJob])
      expect((await jobWhen(h, job, ['OK', 'ERR'], 60_000)).status).toBe('OK');
    expect((await jobWhen(h, leavingJob, ['CANCEL'])).status).toBe('CANCEL');
    await expect.poll(async () => builds(await history(atStartDayJob)).at(-1), { timeout: 15_000 }).toBe(NEXT);
    expect((await h.api('GET', `/transform/v1/jobs/${atStartDayJob}`)).body.status).toBe('WAIT');

    // Which code each ran on.
    const ran = async (job: string) => {
      const hist = await history(job);
      return { builds: [...new Set(builds(hist))], probe: activities(hist).includes('versioningProbe') };
    };
    expect(await ran(doneJob)).toEqual({ builds: [first], probe: false });
    expect(await ran(atSignerJob)).toEqual({ builds: [first, NEXT], probe: true });
    expect(await ran(atDecisionJob)).toEqual({ builds: [first, NEXT], probe: true });
    expect(await ran(atStartDayJob)).toEqual({ builds: [first, NEXT], probe: false }); // past the point: replayed
    expect(await ran(leavingJob)).toEqual({ builds: [first, NEXT], probe: false });
    expect(await ran(afterJob)).toEqual({ builds: [NEXT], probe: true });
    expect([...probed].sort()).toEqual([atSignerJob, atDecisionJob, afterJob].sort());

    // The negative control: without patched(), a history past the directory step does not replay on the next build.
    const unguarded = await bundleWorkflowsFrom(path.join(fixtures, 'unguarded.ts'));
    const guarded = await bundleWorkflowsFrom(path.join(fixtures, 'guarded.ts'));
    const recorded = JSON.parse(
      fs.readFileSync(path.join(__dirname, '..', 'workflows', 'replay', 'histories', 'registration.ok.json'), 'utf8'),
    );
    for (const hist of [parkedAtStartDay, recorded]) {
      await expect(Worker.runReplayHistory({ workflowBundle: unguarded }, hist)).rejects.toBeInstanceOf(
        DeterminismViolationError,
      );
      await Worker.runReplayHistory({ workflowBundle: guarded }, hist);
    }
  }, 240_000);
});
