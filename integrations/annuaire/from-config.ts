// Our PPF Annuaire client as the configuration describes it: one place for the API, the activities and the review.
import type { Config } from '../../platform/config';
import { createAnnuaireClient, type AnnuaireClient } from './client';

/** `timeoutMs` shortens the configured timeout (an operator's page waits less than a registration step). */
export function annuaireClientFromConfig(config: Config, opts: { timeoutMs?: number } = {}): AnnuaireClient {
  return createAnnuaireClient({
    baseUrl: config.annuaireUrl,
    tokenUrl: config.annuaireTokenUrl,
    clientId: config.ANNUAIRE_CLIENT_ID,
    clientSecret: config.ANNUAIRE_CLIENT_SECRET,
    rattachements: [config.PA_SIREN],
    timeoutMs: Math.min(config.ANNUAIRE_TIMEOUT_MS, opts.timeoutMs ?? Infinity),
  });
}
