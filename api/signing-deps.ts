// What the signer's steps (entry API and wizard), the operators' review and the background re-checks share: one
// Annuaire client and one public-register client for the checks (one pace under the register's limit), the trust
// anchors and the decision policy, read once (a file that is not one stops the start).
import type { MandateDeps } from '../domain/mandate/context';
import { loadDecisionPolicy, policyWarnings } from '../domain/review/decision-policy';
import { loadTrustAnchors } from '../domain/review/signing-certificate';
import { annuaireClient, publicRegisterClient } from '../integrations/clients';
import type { AnnuaireClient } from '../integrations/annuaire/client';
import { REVIEW_DIRECTORY_TIMEOUT_MS } from './gov-fr/review';

/** The Annuaire client as it is: the campaigns' pre-flight asks it more than the checks do. */
export type SigningDeps = MandateDeps & { reviewAnnuaire: AnnuaireClient };

/** What the checks need of the process: its store, Temporal client, configuration, data box, seal and pool. */
type ProcessDeps = Omit<MandateDeps, 'reviewAnnuaire' | 'publicRegister' | 'trustAnchors' | 'decisionPolicy'>;

export function signingDeps(deps: ProcessDeps): SigningDeps {
  const decisionPolicy = loadDecisionPolicy(deps.config.DECISION_POLICY_FILE);
  for (const warning of policyWarnings(decisionPolicy)) deps.log.warn({ policy: decisionPolicy.version }, warning);
  return {
    ...deps,
    reviewAnnuaire: annuaireClient(deps.config, { timeoutMs: REVIEW_DIRECTORY_TIMEOUT_MS }),
    publicRegister: publicRegisterClient(deps.config, { timeoutMs: REVIEW_DIRECTORY_TIMEOUT_MS }),
    trustAnchors: deps.config.SIGNATURE_TRUST_ANCHORS_FILE
      ? loadTrustAnchors(deps.config.SIGNATURE_TRUST_ANCHORS_FILE)
      : [],
    decisionPolicy,
  };
}
