// A workspace's own workflow definition, interpreted: its steps in order, then its rescue steps on a failure.
import { setWorkflowOptions } from '@temporalio/workflow';
import { JobRun } from './job/run';
import { isApprovalWait } from '../contract/providers';
import type { DefinitionJobInput, JobResult } from '../contract/job';

export async function runDefinition(job: DefinitionJobInput): Promise<JobResult> {
  const run = new JobRun(job, job.definition);
  try {
    for (const step of job.definition.steps) await (isApprovalWait(step) ? run.approvalWait(step) : run.step(step));
    return await run.ok();
  } catch (failure) {
    return run.rescue(failure);
  }
}

// It may live more than a year (a start day, a signer's days): each run moves to the current build on its next task,
// so a change must replay the runs it finds (the recorded histories), behind patched() if it would not (README).
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, runDefinition);
