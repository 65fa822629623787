// The local simulators of the external systems, started together by `npm start` and by the tests.
import path from 'node:path';
import { startAnnuaireSimulator, type AnnuaireSimulator } from './annuaire';
import { startPeppolDirectorySimulator, type PeppolDirectorySimulator } from './peppol-directory';
import { startSmlSimulator, type SmlSimulator } from './sml';

export interface Simulators {
  annuaire: AnnuaireSimulator;
  sml: SmlSimulator;
  directory: PeppolDirectorySimulator;
  /** Environment pointing the service at these simulators. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startSimulators(opts: {
  host: string;
  ports?: { annuaire: number; sml: number; directory: number };
  /** Where each simulator keeps its state across restarts; in memory when absent. */
  stateDir?: string;
}): Promise<Simulators> {
  const state = (name: string) => (opts.stateDir ? path.join(opts.stateDir, `${name}.json`) : undefined);
  const [annuaire, sml, directory] = await Promise.all([
    startAnnuaireSimulator({ host: opts.host, port: opts.ports?.annuaire ?? 0, stateFile: state('annuaire') }),
    startSmlSimulator({ host: opts.host, port: opts.ports?.sml ?? 0, stateFile: state('sml') }),
    startPeppolDirectorySimulator({ host: opts.host, port: opts.ports?.directory ?? 0, stateFile: state('peppol-directory') }),
  ]);
  return {
    annuaire,
    sml,
    directory,
    env: { ANNUAIRE_URL: annuaire.url, ANNUAIRE_TOKEN_URL: annuaire.tokenUrl, SML_URL: sml.url, PEPPOL_DIRECTORY_URL: directory.url },
    close: async () => {
      await Promise.all([annuaire.close(), sml.close(), directory.close()]);
    },
  };
}
