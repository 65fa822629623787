// The local simulators of the external systems, started together by `npm start` and by the tests.
import path from 'node:path';
import { startAnnuaireSimulator, type AnnuaireSimulator } from './annuaire';
import { parseFaultSetting, type FaultSetting } from './faults';
import { startPeppolDirectorySimulator, type PeppolDirectorySimulator } from './peppol-directory';
import { startRechercheSimulator, type RechercheSimulator } from './recherche-entreprises';
import { startSmlSimulator, type SmlSimulator } from './sml';

export interface Simulators {
  annuaire: AnnuaireSimulator;
  sml: SmlSimulator;
  directory: PeppolDirectorySimulator;
  /** The API Recherche d'entreprises (the company's directors, for a mandate's signer). */
  recherche: RechercheSimulator;
  /** Environment pointing the service at these simulators. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export interface SimulatorFaults {
  annuaire?: FaultSetting;
  sml?: FaultSetting;
  directory?: FaultSetting;
  recherche?: FaultSetting;
}

/**
 * Fault injection from the environment (JSON: one rule set or a list of them, simulators/faults.ts), e.g.
 * SIM_FAULTS_ANNUAIRE='{"errorRates":{"503":0.3},"latencyMs":200}'. A field it does not know is refused.
 */
export function simulatorFaultsFromEnv(env: NodeJS.ProcessEnv = process.env): SimulatorFaults {
  const parse = (name: string): FaultSetting | undefined => {
    const raw = env[name];
    if (!raw) return undefined;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      throw new Error(`${name} is not valid JSON: ${raw}`);
    }
    const r = parseFaultSetting(json);
    if (!r.ok) throw new Error(`${name} is not a fault setting: ${r.issues.join('; ')}`);
    return r.setting;
  };
  return {
    annuaire: parse('SIM_FAULTS_ANNUAIRE'),
    sml: parse('SIM_FAULTS_SML'),
    directory: parse('SIM_FAULTS_PEPPOL_DIRECTORY'),
    recherche: parse('SIM_FAULTS_RECHERCHE'),
  };
}

/**
 * The Annuaire simulator's settings from the environment: SIM_ANNUAIRE_NEXT_DAY=true shows platforms' changes the
 * next day (as the real directory does), SIM_ANNUAIRE_RATE_LIMIT=<requests per second> answers 429 beyond it.
 */
export function simulatorSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): {
  changesVisibleNextDay?: boolean;
  rateLimitPerSecond?: number;
} {
  const rate = env.SIM_ANNUAIRE_RATE_LIMIT;
  if (rate !== undefined && !(Number(rate) > 0)) throw new Error(`SIM_ANNUAIRE_RATE_LIMIT is not a rate: ${rate}`);
  return {
    ...(env.SIM_ANNUAIRE_NEXT_DAY && { changesVisibleNextDay: env.SIM_ANNUAIRE_NEXT_DAY === 'true' }),
    ...(rate && { rateLimitPerSecond: Number(rate) }),
  };
}

export async function startSimulators(opts: {
  host: string;
  ports?: { annuaire: number; sml: number; directory: number; smlDns?: number; recherche?: number };
  /** Where each simulator keeps its state across restarts; in memory when absent. */
  stateDir?: string;
  faults?: SimulatorFaults;
  /** Our SMP, which the Directory reads business cards from (set later with directory.setSmpUrl if unknown yet). */
  smpUrl?: string;
  /** Our SMP's id at the SML: its DNS answers `smpUrl` for our participants. */
  smpId?: string;
  /** The Annuaire simulator's settings for trials and benchmarks (SIM_ANNUAIRE_* in bin/start.ts). */
  annuaire?: { changesVisibleNextDay?: boolean; rateLimitPerSecond?: number };
  /** The Recherche d'entreprises simulator's limit per client address (default 7, the real API's; null: none). */
  recherche?: { rateLimitPerSecond?: number | null };
}): Promise<Simulators> {
  const state = (name: string) => (opts.stateDir ? path.join(opts.stateDir, `${name}.json`) : undefined);
  const [annuaire, sml, directory, recherche] = await Promise.all([
    startAnnuaireSimulator({
      host: opts.host,
      port: opts.ports?.annuaire ?? 0,
      stateFile: state('annuaire'),
      faults: opts.faults?.annuaire,
      ...opts.annuaire,
    }),
    startSmlSimulator({
      host: opts.host,
      port: opts.ports?.sml ?? 0,
      stateFile: state('sml'),
      faults: opts.faults?.sml,
      dnsPort: opts.ports?.smlDns ?? 0,
      ...(opts.smpId && opts.smpUrl && { smpUrls: { [opts.smpId]: opts.smpUrl } }),
    }),
    startPeppolDirectorySimulator({
      host: opts.host,
      port: opts.ports?.directory ?? 0,
      stateFile: state('peppol-directory'),
      faults: opts.faults?.directory,
      smpUrl: opts.smpUrl,
    }),
    startRechercheSimulator({
      host: opts.host,
      port: opts.ports?.recherche ?? 0,
      stateFile: state('recherche-entreprises'),
      faults: opts.faults?.recherche,
      ...opts.recherche,
    }),
  ]);
  return {
    annuaire,
    sml,
    directory,
    recherche,
    env: {
      ANNUAIRE_URL: annuaire.url,
      ANNUAIRE_TOKEN_URL: annuaire.tokenUrl,
      SML_URL: sml.url,
      SML_DNS_SERVERS: `${sml.dnsAddress.includes(':') ? `[${sml.dnsAddress}]` : sml.dnsAddress}:${sml.dnsPort}`,
      SML_DNS_ZONE: sml.dnsZone,
      PEPPOL_DIRECTORY_URL: directory.url,
      RECHERCHE_ENTREPRISES_URL: recherche.url,
    },
    close: async () => {
      await Promise.all([annuaire.close(), sml.close(), directory.close(), recherche.close()]);
    },
  };
}
