// `gov-fr.agreement.sign`: issues the entry's mandate (its number) and publishes this registration's signing link
// as the `approval-link` meta entry. Idempotent: a second run of the same job finds both and changes nothing.
import { ApplicationFailure } from '@temporalio/activity';
import { ensureApprovalLink } from '../signing/approval-link';
import { issueAgreement } from '../store/agreements';
import { getEntryRow } from '../store/entries';
import type { StepInput } from '../workflows/types';
import type { ActivityDeps } from './deps';
import type { Commit } from './journalled';

export function agreementSign({ db, log, config }: ActivityDeps) {
  return async function agreementSignActivity(input: StepInput, commit: Commit = (write) => db.tx(write)): Promise<{ mandateNumber: string; linkCreated: boolean }> {
    const entry = await getEntryRow(db, input.workspaceId, input.entryId);
    if (!entry?.siren) throw ApplicationFailure.nonRetryable(`entry ${input.entryId} has no SIREN`, 'entry-invalid');
    const day = new Date().toISOString().slice(0, 10);

    // The link first: an earlier job's link, still in place, would otherwise open this job's new mandate until it
    // is replaced. A retry finds both.
    const { created, agreement } = await commit(async (q) => ({
      ...(await ensureApprovalLink(q, entry.id, input.jobId, config.wizardUrl)),
      agreement: await issueAgreement(q, { entryId: entry.id, jobId: input.jobId, siren: entry.siren!, matricule: config.PA_MATRICULE, day }),
    }));
    log.info({ jobId: input.jobId, entryId: entry.id, mandate: agreement.mandate_number, linkCreated: created }, 'mandate issued');
    return { mandateNumber: agreement.mandate_number, linkCreated: created };
  };
}
