// LEGACY: the local activities the legacy runJob (workflows/legacy/run-job.ts) records its journal with. The
// workflows of today record nothing themselves: their steps' activities do (activities/journalled.ts).
import type { Fault, JobStatus, StepJournal } from '../workflows/types';
import { journalStep as writeStep, setJobStatus } from '../platform/store/jobs';
import type { ActivityDeps } from './deps';
import type { JournalActivities } from '../workflows/legacy/run-job';

export function journalActivities({ db }: ActivityDeps): JournalActivities {
  return {
    async journalStep(j: StepJournal): Promise<void> {
      await writeStep(db, j); // a single statement: no transaction needed
    },
    async journalJob(j: { jobId: string; status: JobStatus; faults?: Fault[] }): Promise<void> {
      await setJobStatus(db, j.jobId, j.status, j.faults); // its job.completed event too, in the same statement
    },
  };
}
