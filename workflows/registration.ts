// The French party registration (specification §3.1): one activity a step, the signer's approval in between.
import { setWorkflowOptions } from '@temporalio/workflow';
import { REGISTRATION, REGISTRATION_STEPS as step } from '../contract/definitions';
import { JobRun } from './job/run';
import type { JobInput, JobResult } from '../contract/job';

export async function registration(job: JobInput): Promise<JobResult> {
  const run = new JobRun(job, REGISTRATION);
  try {
    await run.step(step.sign); // issue the mandate and publish the signer's link
    await run.step(step.processing); // the party's state; the job now waits for its signer
    await run.approvalWait(step.approval); // the signer submits, an operator approves: both recorded by the API
    await run.step(step.completed); // only if an approved decision is recorded, else the wait goes on
    await run.step(step.directory); // its line in the PPF directory, taken over from a former platform if the mandate says so
    await run.step(step.peppol); // our SMP's record, the SML, the Peppol Directory
    await run.step(step.registered); // the job ends OK
    return await run.ok();
  } catch (failure) {
    return run.rescue(failure); // the party's state becomes error; the job ends ERR with the fault
  }
}

// It may live more than a year (a start day, a signer's days): each run moves to the current build on its next task,
// so a change must replay the runs it finds (the recorded histories), behind patched() if it would not (README).
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, registration);
