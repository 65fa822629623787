// The French party unregistration (specification §3.2): off Peppol first, then out of the PPF directory.
import { setWorkflowOptions } from '@temporalio/workflow';
import { UNREGISTRATION, UNREGISTRATION_STEPS as step } from '../contract/definitions';
import { JobRun } from './job/run';
import type { JobInput, JobResult } from '../contract/job';

export async function unregistration(job: JobInput): Promise<JobResult> {
  const run = new JobRun(job, UNREGISTRATION);
  try {
    await run.step(step.peppol); // the Peppol Directory card, the SML, our SMP's record
    await run.step(step.directory); // our directory line ended (the SIREN falls back to the PPF if nobody holds it)
    await run.step(step.void); // the job ends OK
    return await run.ok();
  } catch (failure) {
    return run.rescue(failure); // the party's state becomes error; the job ends ERR with the fault
  }
}

// It may live more than a year (a start day, a signer's days): each run moves to the current build on its next task,
// so a change must replay the runs it finds (the recorded histories), behind patched() if it would not (README).
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, unregistration);
