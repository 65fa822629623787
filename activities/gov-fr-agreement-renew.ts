// `gov-fr.agreement.renew`: before an address update, a new mandate only if the addresses the party states go beyond
// the one in force, or what it says of the party (name, first address, signer) changed since it was signed. Beyond it: issued and its signer's link published, exactly as `gov-fr.agreement.sign` does, and
// the approval wait that follows runs. Within it: nothing issued, and the wait is recorded as not needed (its start
// and end, saying why) with this step's own lines; the workflow skips it (`approvalNeeded: false`).
import { ApplicationFailure } from '@temporalio/activity';
import { beyondMandate, invoicingAddressesOf, signedScopeOf } from '../domain/party/invoicing-addresses';
import { approvedMandate, getMandate } from '../platform/store/mandates';
import type { StepCall } from '../contract/journal';
import type { ActivityDeps } from './deps';
import { sirenIn } from '../domain/party/entry-siren';
import { getEntryRow } from '../platform/store/entries';
import { factsChangedSince } from '../domain/party/mandate-facts';
import { withTemporalFailures } from './remote-failure';
import { agreementSign } from './gov-fr-agreement';
import { journalledStatement, recordJournal, stepWrite } from './journalled';

export type RenewResult =
  | { approvalNeeded: true; mandateNumber: string; linkCreated: boolean; beyond: string[]; changed: string[] }
  | { approvalNeeded: false; mandateNumber: string };

export function agreementRenew(deps: ActivityDeps) {
  const { db, log } = deps;
  const sign = journalledStatement(db, agreementSign(deps));
  return async function agreementRenewStep(input: StepCall): Promise<RenewResult> {
    const entry = await getEntryRow(db, input.workspaceId, input.entryId);
    const siren = await withTemporalFailures(async () =>
      sirenIn({ found: !!entry, ...(entry?.siren && { siren: entry.siren }) }, input.entryId),
    );
    const inForce = await approvedMandate(db, input.entryId);
    if (!inForce) {
      throw ApplicationFailure.nonRetryable(
        'the party has no signed and approved mandate: register it before updating its addresses',
        'mandate-not-approved',
      );
    }
    const wanted = await invoicingAddressesOf(db, input.entryId, siren);
    const beyond = beyondMandate(signedScopeOf(inForce.invoicingAddresses, siren), wanted.addresses).map((a) => a.id);
    const changed = factsChangedSince(inForce.facts, entry!.data);
    // A retry after this job issued its mandate goes on with it, whatever the addresses say now.
    const issuedHere = (await getMandate(db, input.entryId))?.job_id === input.jobId;
    if (beyond.length > 0 || changed.length > 0 || issuedHere) {
      // The job says why a signature is asked for again (a retry that finds the party changed since says nothing).
      const why = [
        ...(beyond.length ? [`${beyond.join(', ')} beyond mandate ${inForce.number}`] : []),
        ...(changed.length ? [`${changed.join(', ')} changed since mandate ${inForce.number}`] : []),
      ];
      const signed = await sign(input, why.length ? { message: `new mandate to sign: ${why.join('; ')}` } : undefined);
      log.info({ jobId: input.jobId, entryId: input.entryId, beyond, changed }, 'new mandate issued for the party');
      return { approvalNeeded: true, ...signed, beyond, changed };
    }
    const waive = `not needed: every address is within mandate ${inForce.number}, which says what the party says`;
    await recordJournal(db, input.jobId, stepWrite(input, 'end', { waive }));
    return { approvalNeeded: false, mandateNumber: inForce.number };
  };
}
