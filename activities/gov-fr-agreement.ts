// `gov-fr.agreement.sign`: issues the entry's mandate (its number) and publishes the signing link as the
// `approval-link` meta entry. Idempotent: a second run finds both and changes nothing.
import crypto from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import { issueAgreement } from '../store/agreements';
import { getEntryRow, getMeta, putMeta } from '../store/entries';
import type { StepInput } from '../workflows/types';
import type { ActivityDeps } from './deps';

export const APPROVAL_LINK_KEY = 'approval-link';

export function agreementSign({ db, log, config }: ActivityDeps) {
  return async function agreementSignActivity(input: StepInput): Promise<{ mandateNumber: string; linkCreated: boolean }> {
    const entry = await getEntryRow(db, input.workspaceId, input.entryId);
    if (!entry?.siren) throw ApplicationFailure.nonRetryable(`entry ${input.entryId} has no SIREN`, 'entry-invalid');
    const day = new Date().toISOString().slice(0, 10);

    return db.tx(async (q) => {
      const agreement = await issueAgreement(q, { entryId: entry.id, jobId: input.jobId, siren: entry.siren!, matricule: config.PA_MATRICULE, day });
      let linkCreated = false;
      if (!(await getMeta(q, entry.id, APPROVAL_LINK_KEY))) {
        // The ref is the wizard's only credential: 256 random bits. It never enters Temporal history.
        const ref = crypto.randomBytes(32).toString('base64url');
        await putMeta(q, entry.id, APPROVAL_LINK_KEY, {
          src: 'gov-fr', ref, link_url: `${config.wizardUrl}/reg/${ref}/start`, link_scope: 'public', indexed: true, shared: true,
        });
        linkCreated = true;
      }
      log.info({ jobId: input.jobId, entryId: entry.id, mandate: agreement.mandate_number, linkCreated }, 'mandate issued');
      return { mandateNumber: agreement.mandate_number, linkCreated };
    });
  };
}
