// `gov-fr.agreement.sign`: issues the entry's mandate (its number) and publishes this registration's signing link
// as the `approval-link` meta entry, with its journal lines, in one statement. Idempotent: a second run of the same
// job finds both and changes nothing. `agreement` is the provider's name for the mandate (wire, in Temporal
// histories too): the provider, this file and its activity keep it.
import { mandateIssuer } from '../domain/mandate-document/number';
import { approvalLinkEffect } from '../domain/mandate/approval-link';
import { issueMandateEffect } from '../platform/store/mandate-numbers';
import { bothEffects } from '../platform/store/statement-effect';
import type { StepResult } from '../contract/activities';
import type { StepInput } from '../contract/journal';
import type { ActivityDeps } from './deps';

export function agreementSign({ log, config }: ActivityDeps) {
  return function agreementSignStep(input: Omit<StepInput, 'config'>) {
    const day = new Date().toISOString().slice(0, 10);
    // The store's parameter keeps its old name: it is the PA's part of the number, now its SIREN.
    const issuer = mandateIssuer({ siren: config.PA_SIREN, matricule: config.PA_MATRICULE });
    // Together: an earlier job's link, left in place, would otherwise open this job's new mandate.
    const effect = bothEffects(
      issueMandateEffect({ entryId: input.entryId, jobId: input.jobId, matricule: issuer, day }),
      approvalLinkEffect(input.entryId, input.jobId, config.wizardUrl),
    );
    return {
      effect,
      done(result: unknown): StepResult & { mandateNumber: string; linkCreated: boolean } {
        const [mandateNumber, linkCreated] = result as [string, boolean];
        log.info({ jobId: input.jobId, entryId: input.entryId, mandate: mandateNumber, linkCreated }, 'mandate issued');
        return { mandateNumber, linkCreated };
      },
    };
  };
}
