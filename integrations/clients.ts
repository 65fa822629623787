// The clients of the outside world, as the configuration describes them: the worker builds them once for its
// activities and injects them (a test hands in its own); the API's directory lookups and its Peppol migrations
// (api/gov-fr/, api/peppol/) use the same factory.
import type { Dispatcher } from 'undici';
import type { Config } from '../platform/config';
import { publicOnlyDispatcher } from '../domain/events/url-guard';
import { createAnnuaireClient, type AnnuaireClient } from './annuaire/client';
import { createDirectoryClient, type DirectoryClient } from './peppol/directory-client';
import { createSmlClient, type SmlClient } from './peppol/sml-client';
import { createSmlDns, type SmlDns } from './peppol/sml-dns';
import { smlDispatcher } from './peppol/sml-tls';
import { createRechercheClient } from './recherche-entreprises/client';
import type { DirectorLookup } from '../domain/review/director-check';

export interface Clients {
  annuaire: AnnuaireClient;
  sml: SmlClient;
  directory: DirectoryClient;
  /** The SML's DNS, where the reconciliation finds which SMP a participant is at now. */
  smlDns: SmlDns;
  /** How webhook deliveries connect: to public addresses only, unless WEBHOOK_ALLOW_PRIVATE_NETWORKS. */
  webhooks: Dispatcher | undefined;
}

/** `timeoutMs` shortens the configured timeout (an operator's page waits less than a registration step). */
export function annuaireClient(config: Config, opts: { timeoutMs?: number } = {}): AnnuaireClient {
  return createAnnuaireClient({
    baseUrl: config.annuaireUrl,
    tokenUrl: config.annuaireTokenUrl,
    clientId: config.ANNUAIRE_CLIENT_ID,
    clientSecret: config.ANNUAIRE_CLIENT_SECRET,
    rattachements: [config.PA_SIREN],
    timeoutMs: Math.min(config.ANNUAIRE_TIMEOUT_MS, opts.timeoutMs ?? Infinity),
  });
}

/** The API Recherche d'entreprises, for the submission checks: answering within `timeoutMs`, its wait for a turn included. */
export function publicRegisterClient(config: Config, opts: { timeoutMs: number }): DirectorLookup {
  return createRechercheClient({
    baseUrl: config.rechercheEntreprisesUrl,
    timeoutMs: opts.timeoutMs,
    perSecond: config.RECHERCHE_ENTREPRISES_RATE,
    userAgent: `${config.PA_NAME} (SIREN ${config.PA_SIREN}) party registration`,
  });
}

/** The SML client of our SMP (mutual TLS when configured). */
export function smlClient(config: Config): SmlClient {
  return createSmlClient({
    url: config.smlUrl,
    smpId: config.SMP_ID,
    dispatcher: smlDispatcher(config),
    timeoutMs: config.PEPPOL_TIMEOUT_MS,
  });
}

export const smlDnsClient = (config: Config): SmlDns =>
  createSmlDns({ zone: config.SML_DNS_ZONE, servers: config.smlDnsServers, timeoutMs: config.PEPPOL_TIMEOUT_MS });

export function createClients(config: Config): Clients {
  return {
    annuaire: annuaireClient(config),
    sml: smlClient(config),
    directory: createDirectoryClient({ url: config.peppolDirectoryUrl, timeoutMs: config.PEPPOL_TIMEOUT_MS }),
    smlDns: smlDnsClient(config),
    webhooks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS ? undefined : publicOnlyDispatcher(),
  };
}
