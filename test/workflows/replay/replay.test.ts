// Replays recorded histories (test/workflows/replay/histories, recorded with RECORD_HISTORIES=1 from test/workflows)
// against today's workflow code. The job workflows are auto-upgrade (README): a running registration moves to a new
// build on its next task, so a change that would break it fails here — it goes behind patched() instead.
// `*.before-waiting-for.json` were recorded by the build before the WaitingFor search attribute (0e4cdec): runs where
// the party's state says nothing new (a renewal's hints, a dated step before the wait), which wrote no search
// attribute there; 22fb126's code did, and fails them.
import fs from 'node:fs';
import path from 'node:path';
import { Worker, bundleWorkflowCode } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { describe, expect, it } from 'vitest';
import { WORKFLOWS_PATH } from '../../../worker/create-worker';

const dir = path.join(__dirname, 'histories');
const histories = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
// Raw JSON: the worker converts it with its own protobuf classes.
const load = (f: string) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));

describe('replay of recorded histories', () => {
  it('has recorded histories to replay', () => {
    const current = [
      'registration.ok',
      'registration.rescue',
      'registration.rejected-then-approved',
      'registration.forged-approval',
      'run-definition.approval-wait',
      'run-definition.rescue-after-failure',
      'run-definition.silo-state-steps',
      'deliver-webhook.retried',
    ].map((r) => `${r}.json`);
    expect(histories).toEqual(expect.arrayContaining(current));
  });

  it.each(histories)('%s replays deterministically on the current workflow code', async (file) => {
    await Worker.runReplayHistory({ workflowsPath: WORKFLOWS_PATH }, load(file));
  });

  it("a registration's history has the specification's shape: 2 activities, the approval signals, 4 activities", () => {
    const events: Record<string, { activityType?: { name: string } } | undefined>[] =
      load('registration.ok.json').events;
    const kinds = events.flatMap((e) =>
      e.activityTaskScheduledEventAttributes
        ? [e.activityTaskScheduledEventAttributes.activityType!.name]
        : e.workflowExecutionSignaledEventAttributes
          ? ['signal']
          : e.markerRecordedEventAttributes
            ? ['marker']
            : [],
    );
    expect(kinds).toEqual([
      'gov-fr.agreement.sign',
      'silo.state',
      'signal',
      'signal',
      'silo.state',
      'gov-fr.directory.register',
      'peppol.register',
      'silo.state',
    ]); // no marker: no local activity, no patch
  });

  it('catches an incompatible change', async () => {
    const workflowBundle = await bundleWorkflowCode({
      workflowsPath: path.join(__dirname, 'fixtures', 'altered-workflows.ts'),
    });
    await expect(
      Worker.runReplayHistory({ workflowBundle }, load('run-definition.silo-state-steps.json')),
    ).rejects.toBeInstanceOf(DeterminismViolationError);
  });
});
