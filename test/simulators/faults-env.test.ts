import { describe, expect, it } from 'vitest';
import { simulatorFaultsFromEnv, startSimulators } from '../../simulators';

describe('simulator fault injection from the environment', () => {
  it('reads JSON per simulator and the simulators apply it', async () => {
    const faults = simulatorFaultsFromEnv({
      SIM_FAULTS_ANNUAIRE: '{"errorRates":{"503":1}}',
      SIM_FAULTS_SML: '{"status":500}',
    });
    expect(faults).toEqual({ annuaire: { errorRates: { 503: 1 } }, sml: { status: 500 }, directory: undefined });
    const sims = await startSimulators({ host: '127.0.0.1', faults });
    try {
      const annuaire = await fetch(`${sims.annuaire.url}/ligne-annuaire/recherche`, { method: 'POST', body: '{}' });
      expect(annuaire.status).toBe(503);
      const sml = await fetch(sims.sml.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'text/xml' },
        body: '<x/>',
      });
      expect(sml.status).toBe(500);
      expect((await fetch(`${sims.directory.url}/health`)).status).toBe(200);
    } finally {
      await sims.close();
    }
  });

  it('says which variable is not JSON', () => {
    expect(() => simulatorFaultsFromEnv({ SIM_FAULTS_SML: '{oops' })).toThrow(/SIM_FAULTS_SML is not valid JSON/);
  });
});
