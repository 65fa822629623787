// `gov-fr.agreement.renew`: before an address update, a new mandate only if the addresses the party states go beyond
// the one in force. Beyond it: issued and its signer's link published, exactly as `gov-fr.agreement.sign` does, and
// the approval wait that follows runs. Within it: nothing issued, and the wait is recorded as not needed (its start
// and end, saying why) with this step's own lines; the workflow skips it (`approvalNeeded: false`).
import { ApplicationFailure } from '@temporalio/activity';
import { beyondMandate, invoicingAddressesOf, signedScopeOf } from '../domain/party/invoicing-addresses';
import { approvedMandate, getAgreement } from '../platform/store/agreements';
import type { StepCall } from '../contract/journal';
import type { ActivityDeps } from './deps';
import { entrySiren } from '../domain/party/entry-siren';
import { withTemporalFailures } from './remote-failure';
import { agreementSign } from './gov-fr-agreement';
import { journalledStatement, recordJournal, stepWrite } from './journalled';

export type RenewResult =
  | { approvalNeeded: true; mandateNumber: string; linkCreated: boolean; beyond: string[] }
  | { approvalNeeded: false; mandateNumber: string };

export function agreementRenew(deps: ActivityDeps) {
  const { db, log } = deps;
  const sign = journalledStatement(db, agreementSign(deps));
  return async function agreementRenewStep(input: StepCall): Promise<RenewResult> {
    const siren = await withTemporalFailures(() => entrySiren(db, input));
    const inForce = await approvedMandate(db, input.entryId);
    if (!inForce) {
      throw ApplicationFailure.nonRetryable(
        'the party has no signed and approved mandate: register it before updating its addresses',
        'mandate-not-approved',
      );
    }
    const wanted = await invoicingAddressesOf(db, input.entryId, siren);
    const beyond = beyondMandate(signedScopeOf(inForce.invoicingAddresses, siren), wanted.addresses).map((a) => a.id);
    // A retry after this job issued its mandate goes on with it, whatever the addresses say now.
    const issuedHere = (await getAgreement(db, input.entryId))?.job_id === input.jobId;
    if (beyond.length > 0 || issuedHere) {
      // The job says why a signature is asked for again (a retry that finds the addresses changed since says nothing).
      const why = `new mandate to sign: ${beyond.join(', ')} beyond mandate ${inForce.number}`;
      const signed = await sign(input, beyond.length > 0 ? { message: why } : undefined);
      log.info(
        { jobId: input.jobId, entryId: input.entryId, beyond },
        'new mandate issued for addresses beyond the signed one',
      );
      return { approvalNeeded: true, ...signed, beyond };
    }
    const waive = `not needed: every address is within mandate ${inForce.number}`;
    await recordJournal(db, input.jobId, stepWrite(input, 'end', { waive }));
    return { approvalNeeded: false, mandateNumber: inForce.number };
  };
}
