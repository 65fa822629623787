// The production topology (docker-compose.yml) as far as it can be checked without Docker: it parses, has the
// services and health checks the README describes, sets every variable the api and worker need, names no variable
// the service does not read, and its settings load as a valid configuration.
import fs from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ENV_KEYS, loadConfig } from '../../../platform/config';
import { ALL_SEARCH_ATTRIBUTES } from '../../../contract/search-attributes';

interface Service {
  image?: string;
  build?: string;
  command?: string[] | string;
  environment?: Record<string, string | number>;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
}
const compose = parse(fs.readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const example = Object.fromEntries(
  fs
    .readFileSync('.env.example', 'utf8')
    .split('\n')
    .filter((l) => /^[A-Z_]+=/.test(l))
    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
);
/** The environment a container gets, `${VAR}` taken from .env.example as `docker compose` would from .env. */
const resolved = (s: Service) =>
  Object.fromEntries(
    Object.entries(s.environment ?? {}).map(([k, v]) => [
      k,
      String(v).replace(/\$\{(\w+)\}/g, (_, name: string) => example[name] ?? `<unset ${name}>`),
    ]),
  );

describe('docker-compose.yml', () => {
  const { services } = compose;

  it('runs PostgreSQL, Temporal on it, the Temporal UI, the api and the worker, each with a health check', () => {
    for (const name of ['postgresql', 'temporal', 'temporal-ui', 'api', 'worker']) {
      expect(services[name], name).toBeDefined();
      expect(services[name]!.healthcheck?.test.length, `${name} health check`).toBeGreaterThan(0);
    }
    expect(services.temporal!.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgresql' });
    expect(services.temporal!.depends_on?.postgresql?.condition).toBe('service_healthy');
    expect(services['temporal-ui']!.environment?.TEMPORAL_ADDRESS).toBe('temporal:7233');
    // Node as the container's process, not npm, whose shell would not pass on docker stop's SIGTERM.
    expect(services.api!.command).toEqual(['node', '--import', 'tsx', 'bin/api.ts']);
    expect(services.worker!.command).toEqual(['node', '--import', 'tsx', 'bin/worker.ts']);
    expect(fs.readFileSync('Dockerfile', 'utf8')).toMatch(/^CMD \["node", "--import", "tsx", "bin\/api\.ts"\]$/m);
    // The search attributes our workflows set are created before the service starts.
    const setup = JSON.stringify(services['temporal-setup']);
    for (const a of ALL_SEARCH_ATTRIBUTES) expect(setup).toContain(a.name);
    expect(services.api!.depends_on?.['temporal-setup']?.condition).toBe('service_completed_successfully');
    expect(fs.readFileSync('Dockerfile', 'utf8')).toMatch(/^FROM node:24/m);
  });

  it('sets what the api and worker need, only variables they read, and loads as a valid production configuration', () => {
    for (const name of ['api', 'worker']) {
      const env = resolved(services[name]!);
      expect(
        Object.keys(env).filter((k) => !ENV_KEYS.includes(k) && k !== 'NODE_OPTIONS'),
        `${name}: unknown variables`,
      ).toEqual([]);
      expect(
        Object.values(env).filter((v) => v.includes('<unset')),
        `${name}: variables missing from .env.example`,
      ).toEqual([]);
      for (const k of [
        'DATABASE_URL',
        'TEMPORAL_ADDRESS',
        'DATA_ENCRYPTION_KEYS',
        'PUBLIC_BASE_URL',
        'ANNUAIRE_URL',
        'ANNUAIRE_TOKEN_URL',
        'ANNUAIRE_CLIENT_SECRET',
        'SML_URL',
        'SML_DNS_ZONE',
        'PEPPOL_DIRECTORY_URL',
        'RECHERCHE_ENTREPRISES_URL',
        'SMP_ID',
      ]) {
        expect(env[k], `${name}: ${k}`).toBeTruthy();
      }
      const config = loadConfig(env);
      expect(config.DATABASE_URL).toMatch(/^postgres:\/\/pa:.+@postgresql:5432\/pa$/);
      expect(config.TEMPORAL_ADDRESS).toBe('temporal:7233');
      expect(config.annuaireUrl).toBe(example.ANNUAIRE_URL); // the real directory, not the simulator
      expect(config.rechercheEntreprisesUrl).toBe('https://recherche-entreprises.api.gouv.fr');
    }
    expect(resolved(services.api!).API_HOST).toBe('0.0.0.0');
    // Node reads this one: the worker's heap limit, which keeps its memory bounded in a bulk onboarding.
    expect(resolved(services.worker!).NODE_OPTIONS).toMatch(/--max-old-space-size=\d+/);
  });

  it("refuses to start in production against a real SML without its DNS zone (the simulator's would find every participant missing)", () => {
    const env = {
      NODE_ENV: 'production',
      SML_URL: 'https://sml.example/edelivery-sml',
      SMP_PUBLIC_URL: 'https://pa.example/smp',
      AP_ENDPOINT_URL: 'https://pa.example/as4',
    };
    expect(() => loadConfig(env)).toThrow(/SML_DNS_ZONE: required with SML_URL/);
    expect(loadConfig({ ...env, SML_DNS_ZONE: 'edelivery.tech.ec.europa.eu' }).SML_DNS_ZONE).toBe(
      'edelivery.tech.ec.europa.eu',
    );
  });
});
