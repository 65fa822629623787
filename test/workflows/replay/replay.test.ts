// Replays recorded histories (test/workflows/replay/histories, recorded with RECORD_HISTORIES=1 from test/workflows)
// against today's workflow code: a change that would break running registrations fails here.
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
// Histories of runs on the build before this one (the directory cover behind patched() then): this code's changes
// are not compatible with them, which Worker Versioning makes safe.
const previousDir = path.join(__dirname, 'previous-build');

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

  it.each(fs.readdirSync(previousDir))(
    '%s, recorded on the build before this one, does not replay on this one (its runs stay on their build)',
    async (file) => {
      const history = JSON.parse(fs.readFileSync(path.join(previousDir, file), 'utf8'));
      await expect(Worker.runReplayHistory({ workflowsPath: WORKFLOWS_PATH }, history)).rejects.toBeInstanceOf(
        DeterminismViolationError,
      );
    },
  );

  it('catches an incompatible change', async () => {
    const workflowBundle = await bundleWorkflowCode({
      workflowsPath: path.join(__dirname, 'fixtures', 'altered-workflows.ts'),
    });
    await expect(
      Worker.runReplayHistory({ workflowBundle }, load('run-definition.silo-state-steps.json')),
    ).rejects.toBeInstanceOf(DeterminismViolationError);
  });
});
