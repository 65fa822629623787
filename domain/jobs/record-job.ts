// Recording a job before its workflow starts (jobs.ts startJob): in one transaction, the entry's facts read with
// their rows locked, the start decided (job-start.ts), the job inserted QUEUED. What the unique indexes refuse (a job
// running on the entry, a registration of its SIREN running, a key taken) is told once the transaction has ended.
// The entry's lock can meet a transaction ending the entry's previous job (which updates the job, then the entry)
// while the insert waits on that job in the one-active-job index: PostgreSQL aborts one of the two, and this one is
// run again, a few times, rather than answered 500.
import type { Definition } from '../../contract/job';
import type { JobWorkflowType } from '../../contract/workflow-types';
import type { Db } from '../../platform/store/db';
import type { JobView } from '../../platform/store/job-views';
import { insertQueuedJob, jobConflict, lockJobStartFacts } from '../../platform/store/jobs';
import { jobStartRefusal, type JobStartRefusal } from './job-start';

export type RecordJobResult =
  | JobStartRefusal
  | {
      outcome: 'inserted';
      job: JobView;
      siren: string | null;
      /** The party's name, as the run's summary shows it for a legal person. */
      name: string | null;
    };

export async function recordJob(
  db: Db,
  j: {
    id: string;
    workspaceId: string;
    key?: string;
    workflowId: string;
    workflowType: JobWorkflowType;
    entryId: string;
    docSchema: string;
    definition: Definition;
    args: Record<string, string>;
    tags: string[];
    registers: boolean;
    /** an unregistration: refused on an entry that has nothing to undo (never registered, void, cancelled) */
    unregisters?: boolean;
  },
): Promise<RecordJobResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await recordOnce(db, j);
    } catch (err) {
      if (attempt >= MAX_ATTEMPTS || !RETRIED.has((err as { code?: string }).code ?? '')) throw err;
    }
  }
}

/** deadlock_detected, serialization_failure. */
const RETRIED = new Set(['40P01', '40001']);
const MAX_ATTEMPTS = 3;

async function recordOnce(db: Db, j: Parameters<typeof recordJob>[1]): Promise<RecordJobResult> {
  try {
    return await db.tx(async (q) => {
      const facts = await lockJobStartFacts(q, {
        workspaceId: j.workspaceId,
        entryId: j.entryId,
        sameSiren: j.registers,
      });
      const refused = jobStartRefusal(facts, j);
      if (refused) return refused;
      const { siren, name } = facts.entry!;
      const job = await insertQueuedJob(q, { ...j, registersSiren: j.registers ? siren : null });
      return { outcome: 'inserted' as const, job, siren, name };
    });
  } catch (err) {
    throw (await jobConflict(db, err, j)) ?? err;
  }
}
