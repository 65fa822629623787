// `job.cancel`: a job cancelled through the API, recorded at once — its mandate voided, its wizard link retired, the
// party `cancelled`, the cancelled step's end and the job's CANCEL with the reason the API stored. One transaction.
import { voidJobMandate } from '../platform/store/agreements';
import { cancelReasonOf, jobUnregisters } from '../platform/store/jobs';
import { recordState } from '../platform/store/entries';
import { writeJournal } from '../platform/store/job-journal';
import { retireJobApprovalLink } from '../domain/submission/approval-link';
import { CANCELLED, CANCELLED_BEFORE_START, type CancelRecord, type JournalLine } from '../workflows/types';
import type { ActivityDeps } from './deps';
import { byStepIds } from './journalled';

export function jobCancel({ db, log }: ActivityDeps) {
  return async function jobCancelled(c: CancelRecord): Promise<void> {
    const journal = byStepIds(c.journal);
    await db.tx(async (q) => {
      const reason = (await cancelReasonOf(q, c.jobId)) ?? 'cancelled through the API';
      const withReason = <T extends { code?: string; message?: string }>(l: T): T =>
        l.code !== CANCELLED
          ? l
          : {
              ...l,
              message: l.message === CANCELLED_BEFORE_START ? `cancelled before this step started: ${reason}` : reason,
            };
      // An unregistration cancelled before it started (waiting for its leaving day) leaves the party as it was.
      if (!(await jobUnregisters(q, c.jobId))) {
        await voidJobMandate(q, c.entryId, c.jobId);
        await retireJobApprovalLink(q, c.entryId, c.jobId);
        await recordState(q, { entryId: c.entryId, state: 'cancelled', jobId: c.jobId, stepId: c.stepId });
      }
      const status = journal.status && {
        ...journal.status,
        ...(journal.status.faults && { faults: journal.status.faults.map(withReason) }),
      };
      await writeJournal(q, c.jobId, {
        lines: (journal.owed ?? []).map((l: JournalLine) => withReason(l)),
        ...(status && { status }),
      });
    });
    log.info({ jobId: c.jobId, entryId: c.entryId, stepId: c.stepId }, 'job cancelled');
  };
}
