// `gov-fr.agreement.sign`: issues the entry's mandate (its number) and publishes this registration's signing link
// as the `approval-link` meta entry. Idempotent: a second run of the same job finds both and changes nothing.
import { ApplicationFailure } from '@temporalio/activity';
import { ensureApprovalLink } from '../signing/approval-link';
import { issueAgreement } from '../store/agreements';
import { getEntryRow } from '../store/entries';
import type { StepInput } from '../workflows/types';
import type { ActivityDeps } from './deps';

export function agreementSign({ db, log, config }: ActivityDeps) {
  return async function agreementSignActivity(input: StepInput): Promise<{ mandateNumber: string; linkCreated: boolean }> {
    const entry = await getEntryRow(db, input.workspaceId, input.entryId);
    if (!entry?.siren) throw ApplicationFailure.nonRetryable(`entry ${input.entryId} has no SIREN`, 'entry-invalid');
    const day = new Date().toISOString().slice(0, 10);

    return db.tx(async (q) => {
      const agreement = await issueAgreement(q, { entryId: entry.id, jobId: input.jobId, siren: entry.siren!, matricule: config.PA_MATRICULE, day });
      const { created } = await ensureApprovalLink(q, entry.id, input.jobId, config.wizardUrl);
      log.info({ jobId: input.jobId, entryId: entry.id, mandate: agreement.mandate_number, linkCreated: created }, 'mandate issued');
      return { mandateNumber: agreement.mandate_number, linkCreated: created };
    });
  };
}
