// `job.cancel`: a job cancelled through the API, recorded at once — its mandate voided, its wizard link retired, the
// party `cancelled` (or still `registered`), the cancelled step's end and the job's CANCEL with the reason the API
// stored. One transaction.
import { restoreSupersededMandate, voidJobMandate } from '../platform/store/mandates';
import { jobActsOnRegistered } from '../platform/store/jobs';
import { cancelReasonOf } from '../platform/store/job-cancellation';
import { recordState } from '../platform/store/entry-states';
import { writeJournal } from '../platform/store/job-journal';
import { retireJobApprovalLink } from '../domain/mandate/approval-link';
import { CANCELLED, CANCELLED_BEFORE_START, type PartyState } from '../contract/job';
import { type CancelRecord, type JournalLine } from '../contract/journal';
import type { ActivityDeps } from './deps';

export function jobCancel({ db, log }: ActivityDeps) {
  /** Returns the party's state it recorded. */
  return async function jobCancelled(c: CancelRecord): Promise<PartyState> {
    const { journal } = c;
    const state = await db.tx(async (q) => {
      const reason = (await cancelReasonOf(q, c.jobId)) ?? 'cancelled through the API';
      const withReason = <T extends { code?: string; message?: string }>(l: T): T =>
        l.code !== CANCELLED
          ? l
          : {
              ...l,
              message: l.message === CANCELLED_BEFORE_START ? `cancelled before this step started: ${reason}` : reason,
            };
      // Whatever mandate the job issued is void (the one it would have replaced stays in force) and its link retired.
      await voidJobMandate(q, c.entryId, c.jobId);
      await retireJobApprovalLink(q, c.entryId, c.jobId);
      // An unregistration or address update cancelled before it acted leaves the party registered, as it was, under
      // the mandate in force (an update's new one, never approved, gives it its place back).
      const onRegistered = await jobActsOnRegistered(q, c.jobId);
      if (onRegistered) await restoreSupersededMandate(q, c.entryId, c.jobId);
      const state: PartyState = onRegistered ? 'registered' : 'cancelled';
      await recordState(q, { entryId: c.entryId, state, jobId: c.jobId, stepId: c.stepId });
      const status = journal.status && {
        ...journal.status,
        ...(journal.status.faults && { faults: journal.status.faults.map(withReason) }),
      };
      await writeJournal(q, c.jobId, {
        lines: (journal.owed ?? []).map((l: JournalLine) => withReason(l)),
        ...(status && { status }),
      });
      return state;
    });
    log.info({ jobId: c.jobId, entryId: c.entryId, stepId: c.stepId, state }, 'job cancelled');
    return state;
  };
}
