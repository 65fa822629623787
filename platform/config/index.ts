// Over 300 lines on purpose (why): every setting in one schema, each with the comment that says what it is for, so
// that none is read anywhere else. One environment schema for every process; defaults are the embedded stack.
import path from 'node:path';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';

const port = z.coerce.number().int().min(0).max(65535);
const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

const envSchema = z.object({
  DATA_DIR: z.string().default('data'),
  DATABASE_URL: z.string().url().optional(),
  API_HOST: z.string().default('127.0.0.1'),
  API_PORT: port.default(8080),
  PUBLIC_BASE_URL: z.string().url().optional(),
  WIZARD_URL: z.string().url().optional(),
  // Origins allowed to embed the wizard in an iframe (space-separated, e.g. "https://app.customer.fr"); none by default.
  WIZARD_FRAME_ANCESTORS: z
    .string()
    .default('')
    .transform((v) => v.split(/\s+/).filter(Boolean))
    .pipe(
      z.array(z.string().regex(/^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/i, 'each must be an origin: scheme://host[:port]')),
    ),
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('party-registration'),
  TEMPORAL_UI_PORT: port.default(8233),
  // Temporal Cloud (or any TLS frontend): an API key, or a client certificate and key (PEM files); TLS is on with either.
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  TEMPORAL_TLS_CERT_FILE: z.string().optional(),
  TEMPORAL_TLS_KEY_FILE: z.string().optional(),
  // A self-hosted cluster's own CA (PEM file) and the name in its frontend's certificate (when not the address's host).
  TEMPORAL_TLS_CA_FILE: z.string().optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().optional(),
  TEMPORAL_CLI: z.string().optional(),
  APPROVAL_DEADLINE: z
    .string()
    .regex(/^\d+\s*(ms|s|m|h|d)$/, 'a duration such as 30d or 12h')
    .default('30d'),
  SIMULATORS_HOST: z.string().default('127.0.0.1'),
  ANNUAIRE_SIM_PORT: port.default(8091),
  SML_SIM_PORT: port.default(8092),
  PEPPOL_DIRECTORY_SIM_PORT: port.default(8093),
  // The SML simulator's DNS responder (UDP), answering its zone's U-NAPTR records.
  SML_SIM_DNS_PORT: port.default(8094),
  RECHERCHE_ENTREPRISES_SIM_PORT: port.default(8095),
  // Who we are, as a PA.
  PA_NAME: z.string().default('Plateforme Exemple SAS'),
  PA_SIREN: z
    .string()
    .regex(/^\d{9}$/)
    .default('552032534'),
  PA_MATRICULE: z
    .string()
    .regex(/^\d{4}$/, 'the 4-digit PA matricule')
    .default('0145'),
  // PPF Annuaire (defaults: the local simulator).
  ANNUAIRE_URL: z.string().url().optional(),
  ANNUAIRE_TOKEN_URL: z.string().url().optional(),
  ANNUAIRE_CLIENT_ID: z.string().default('pa-dev'),
  ANNUAIRE_CLIENT_SECRET: z.string().default('pa-dev-secret'),
  // Peppol: our SMP id at the SML, the SML and Directory endpoints (defaults: the local simulators).
  SMP_ID: z.string().default('PA-DEV-SMP'),
  SMP_PUBLIC_URL: z.string().url().optional(),
  SML_URL: z.string().url().optional(),
  // Mutual TLS with the production SML: our SMP's client certificate and key (PEM), and the CA to trust.
  SML_TLS_CERT_FILE: z.string().optional(),
  SML_TLS_KEY_FILE: z.string().optional(),
  SML_TLS_CA_FILE: z.string().optional(),
  PEPPOL_DIRECTORY_URL: z.string().url().optional(),
  // The API Recherche d'entreprises (the companies' directors, for the submission checks; default: the local
  // simulator; production: https://recherche-entreprises.api.gouv.fr), and the requests a second each API process
  // sends it (it allows about 7 per address).
  RECHERCHE_ENTREPRISES_URL: z.string().url().optional(),
  RECHERCHE_ENTREPRISES_RATE: z.coerce.number().min(0.1).max(100).default(7),
  // The SML's DNS zone (production: edelivery.tech.ec.europa.eu) and the name servers asked for it (host:port, comma-
  // separated; unset: the simulator's responder when SML_URL is unset, else the system's resolver).
  SML_DNS_ZONE: z
    .string()
    .regex(/^[a-z0-9.-]+$/i, 'a DNS zone')
    .default('sml.peppol.localhost'),
  SML_DNS_SERVERS: z
    .string()
    .optional()
    .transform((v) => v?.split(/[\s,]+/).filter(Boolean))
    .pipe(
      z.array(z.string().regex(/^[^\s:]+(:\d{1,5})?$|^\[[0-9a-f:]+\](:\d{1,5})?$/i, 'host or host:port')).optional(),
    ),
  // The nightly reconciliation (domain/reconciliation/): when (a cron expression in RECONCILE_TIMEZONE, or "off"),
  // on how many of a new deployment's first nights its runs only report, how far apart two sightings must be to agree
  // on an action, and how many days back its searches reach (so that lines ended lately still show).
  RECONCILE_CRON: z
    .string()
    .regex(/^off$|^(\S+\s+){4}\S+$/, 'five cron fields, or "off"')
    .default('30 1 * * *'),
  RECONCILE_TIMEZONE: z.string().default('UTC'),
  RECONCILE_REPORT_ONLY_NIGHTS: z.coerce.number().int().min(0).max(1000).default(3),
  RECONCILE_AGREE_AFTER: z
    .string()
    .regex(/^\d+\s*(ms|s|m|h|d)$/, 'a duration such as 12h')
    .default('12h'),
  RECONCILE_LOOKBACK_DAYS: z.coerce.number().int().min(1).max(365).default(7),
  // Requests per second the reconciliation sends the Annuaire (its quota on the PISTE gateway); a 429 waits Retry-After.
  RECONCILE_ANNUAIRE_RPS: z.coerce.number().min(0.1).max(1000).default(20),
  // Campaigns: the largest file and the most rows one may have; the requests per second a dry run sends the
  // Annuaire and the SML's DNS (the expected duration is counted at these rates).
  CAMPAIGN_FILE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(4_000_000_000)
    .default(256 * 1024 * 1024),
  CAMPAIGN_MAX_ROWS: z.coerce.number().int().min(1).max(5_000_000).default(500_000),
  CAMPAIGN_ANNUAIRE_RPS: z.coerce.number().min(0.1).max(1000).default(20),
  CAMPAIGN_DNS_RPS: z.coerce.number().min(0.1).max(10_000).default(100),
  // Directory steps and Peppol steps started a second, across every worker of the deployment (the task queues'
  // rate limits, kept by the Temporal server). A directory step sends the Annuaire about 4 requests (a search, a
  // write and its read-back, an end when it takes over), a Peppol step about 3 (the SML, the Directory, its read).
  ANNUAIRE_STEPS_PER_S: z.coerce.number().min(0.01).max(10_000).default(5),
  PEPPOL_STEPS_PER_S: z.coerce.number().min(0.01).max(10_000).default(10),
  // Rows a started campaign registers a second (entries made, registrations started: their mandates are drawn).
  CAMPAIGN_LAUNCH_PER_S: z.coerce.number().min(0.1).max(10_000).default(20),
  // How long a request to the Annuaire (token included) and to the SML or the Directory may take before we give up
  // on it (the step is then retried by Temporal).
  ANNUAIRE_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
  PEPPOL_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
  // Encryption at rest: "kid:base64(32 bytes),…" and the id of the key that seals new data. Without them the
  // embedded stack generates a development key under DATA_DIR/keys/.
  DATA_ENCRYPTION_KEYS: z.string().optional(),
  DATA_ENCRYPTION_KEY_ID: z.string().optional(),
  // The certificate sealing confirmed mandates (PEM files); a development one is generated when absent.
  SEAL_KEY_FILE: z.string().optional(),
  SEAL_CERT_FILE: z.string().optional(),
  // Our Peppol access point and SMP signing certificate (PEM files); development ones are generated when absent.
  AP_ENDPOINT_URL: z.string().url().optional(),
  AP_CERT_FILE: z.string().optional(),
  SMP_KEY_FILE: z.string().optional(),
  SMP_CERT_FILE: z.string().optional(),
  // How long (ms) the SMP may serve a participant record without reading the store again.
  SMP_RECORD_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  // max-age (seconds) of SMP documents for HTTP caches between us and access points (they revalidate with ETags).
  SMP_HTTP_MAX_AGE_S: z.coerce.number().int().min(0).max(86_400).default(60),
  // Sandbox: approve every submission as soon as it is confirmed.
  AUTO_APPROVE: bool.default(false),
  // The CAs (PEM bundle) whose certificates bind a digital signature to the person they name (none: none does).
  SIGNATURE_TRUST_ANCHORS_FILE: z.string().optional(),
  /** The decision policy (four eyes), a JSON file: domain/review/decision-policy.json by default. */
  DECISION_POLICY_FILE: z.string().optional(),
  // Let webhooks reach private, loopback and link-local addresses (development and tests only).
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: bool.default(false),
  // First retry delay of a failed webhook delivery (then doubling up to 1 h, for 13 h in all).
  WEBHOOK_RETRY_INITIAL: z
    .string()
    .regex(/^\d+(ms|s|m)$/, 'a duration such as 10s or 500ms')
    .default('10s'),
  // Requests per minute per API key (each API process counts its own).
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(600),
  // Requests per minute per client address on the public pages and files (the wizard, the review page, the
  // reference, unknown paths; default: twice the per-key limit); each API process counts its own.
  RATE_LIMIT_PER_IP_PER_MINUTE: z.coerce.number().int().min(1).max(10_000_000).optional(),
  // Failed authentications per minute per client address (a bucket of their own: valid keys do not spend it).
  RATE_LIMIT_FAILED_AUTH_PER_MINUTE: z.coerce.number().int().min(1).max(10_000_000).default(60),
  // Requests per minute on one wizard link (/reg/<ref>/…), whoever sends them.
  WIZARD_RATE_LIMIT_PER_REF_PER_MINUTE: z.coerce.number().int().min(1).max(10_000_000).default(120),
  // The load balancers in front of the API, whose X-Forwarded-For is believed: a hop count ("1") or their addresses
  // and CIDRs ("10.0.0.0/8, 192.168.1.7"). Unset: none, the client address is the connection's.
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const value = v?.trim();
      if (!value) return undefined;
      if (/^\d+$/.test(value)) return Number(value);
      const list = value.split(/[\s,]+/).filter(Boolean);
      const bad = list.filter(
        (a) =>
          !ipaddr.isValidCIDR(a) &&
          !(ipaddr.isValid(a) && net.isIP(a)) &&
          !['loopback', 'linklocal', 'uniquelocal'].includes(a),
      );
      if (bad.length)
        ctx.addIssue({
          code: 'custom',
          message: `a hop count, or addresses and CIDRs of the proxies (not ${bad.join(', ')})`,
        });
      return list;
    }),
  // Uploaded files (pre-signed mandates, identity images, drawn signatures) are checked in child processes: how many,
  // how many uploads may wait for one (beyond, 503 with Retry-After), and each check's time and memory budget.
  INSPECT_POOL_SIZE: z.coerce.number().int().min(1).max(64).default(2),
  INSPECT_QUEUE: z.coerce.number().int().min(0).max(10_000).default(32),
  INSPECT_TIMEOUT_MS: z.coerce.number().int().min(500).max(300_000).default(15_000),
  INSPECT_MEMORY_MB: z.coerce.number().int().min(256).max(16_384).default(512),
  // When set, GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>"; unset, it is open (refused in production
  // unless METRICS_PORT keeps it on an internal listener).
  METRICS_TOKEN: z.string().min(16).optional(),
  // When set, the API serves /metrics only on this port of METRICS_HOST (an internal listener), not on API_PORT.
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  METRICS_HOST: z.string().default('127.0.0.1'),
  // "production" (the Dockerfile sets it): the API refuses to start with /metrics open to anyone.
  NODE_ENV: z.string().optional(),
  // Prometheus listener of Temporal's SDK metrics (worker slots, polls, latencies), e.g. 127.0.0.1:9464; off when unset.
  TEMPORAL_METRICS_ADDRESS: z
    .string()
    .regex(/^[^:\s]+:\d{1,5}$/, 'host:port')
    .optional(),
  // Worker tuning (worker/create-worker.ts); BENCHMARKS.md has the figures behind the defaults.
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).max(100_000).default(500),
  WORKER_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().min(1).max(10_000).default(100),
  WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: z.coerce.number().int().min(2).max(10_000).default(50),
  // Worker Versioning (worker/versioning.ts): the Worker Deployment the workers belong to, this worker's build (the
  // workflow bundle's hash when unset), and whether it makes its build the deployment's current one once it polls
  // (the embedded stack always does; a production deploy does it as a step: README).
  TEMPORAL_DEPLOYMENT_NAME: z.string().min(1).default('party-registration'),
  WORKER_BUILD_ID: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits, dots, dashes and underscores, at most 64')
    .optional(),
  WORKER_MAKE_CURRENT: bool.default(false),
  // A workflow bundle built ahead of time (npm run build:workflows); bundled at start when unset.
  WORKFLOW_BUNDLE_FILE: z.string().optional(),
  // A separate worker process serves its own /metrics on this port; off when unset.
  WORKER_METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_PRETTY: bool.default(false),
});

export type Env = z.infer<typeof envSchema>;
/** Every variable the processes read (docker-compose.yml is checked against it). */
export const ENV_KEYS = Object.keys(envSchema.shape);

export interface Config extends Env {
  dataDir: string;
  /** The SML client key from the encrypted store (platform/store/platform-secrets.ts), preferred to SML_TLS_KEY_FILE. */
  smlTlsKeyPem?: string;
  publicBaseUrl: string;
  wizardUrl: string;
  annuaireUrl: string;
  annuaireTokenUrl: string;
  smlUrl: string;
  peppolDirectoryUrl: string;
  rechercheEntreprisesUrl: string;
  smpPublicUrl: string;
  /** SML_DNS_SERVERS, or the simulator's responder when the SML is the simulator; empty: the system's resolver. */
  smlDnsServers: string[];
  /** RATE_LIMIT_PER_IP_PER_MINUTE or its default. */
  ipRateLimitPerMinute: number;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const publicBaseUrl = e.PUBLIC_BASE_URL ?? `http://${e.API_HOST}:${e.API_PORT}`;
  if (e.NODE_ENV === 'production') refuseInsecurePeppolAddresses(e, publicBaseUrl);
  // The simulator's zone would make every participant look missing from the real SML: say which zone it is.
  if (e.NODE_ENV === 'production' && e.SML_URL && !env.SML_DNS_ZONE)
    throw new ConfigError("invalid configuration:\n  SML_DNS_ZONE: required with SML_URL (the SML's DNS zone)");
  const sim = (port: number) => `http://${e.SIMULATORS_HOST}:${port}`;
  const annuaireUrl = e.ANNUAIRE_URL ?? sim(e.ANNUAIRE_SIM_PORT);
  return {
    ...e,
    dataDir: path.resolve(e.DATA_DIR),
    publicBaseUrl,
    wizardUrl: e.WIZARD_URL ?? publicBaseUrl,
    annuaireUrl,
    annuaireTokenUrl: e.ANNUAIRE_TOKEN_URL ?? `${annuaireUrl}/oauth/token`,
    smlUrl: e.SML_URL ?? sim(e.SML_SIM_PORT),
    peppolDirectoryUrl: e.PEPPOL_DIRECTORY_URL ?? sim(e.PEPPOL_DIRECTORY_SIM_PORT),
    rechercheEntreprisesUrl: e.RECHERCHE_ENTREPRISES_URL ?? sim(e.RECHERCHE_ENTREPRISES_SIM_PORT),
    smpPublicUrl: e.SMP_PUBLIC_URL ?? `${publicBaseUrl}/smp`,
    smlDnsServers: e.SML_DNS_SERVERS ?? (e.SML_URL ? [] : [`${e.SIMULATORS_HOST}:${e.SML_SIM_DNS_PORT}`]),
    ipRateLimitPerMinute: e.RATE_LIMIT_PER_IP_PER_MINUTE ?? 2 * e.RATE_LIMIT_PER_MINUTE,
  };
}

/**
 * Peppol requires HTTPS of SMPs since February 2026 (and of AS4 access points): in production, the addresses we
 * publish at the SML and in our SMP records must be https://, or the SML and senders would be sent elsewhere.
 */
function refuseInsecurePeppolAddresses(
  e: { SMP_PUBLIC_URL?: string; AP_ENDPOINT_URL?: string },
  publicBaseUrl: string,
): void {
  const base = publicBaseUrl.replace(/\/+$/, '');
  const published = [
    ['SMP_PUBLIC_URL', e.SMP_PUBLIC_URL ?? `${base}/smp`, e.SMP_PUBLIC_URL ? '' : ' (from PUBLIC_BASE_URL)'],
    ['AP_ENDPOINT_URL', e.AP_ENDPOINT_URL ?? `${base}/as4`, e.AP_ENDPOINT_URL ? '' : ' (from PUBLIC_BASE_URL)'],
  ];
  const insecure = published.filter(([, url]) => new URL(url!).protocol !== 'https:');
  if (insecure.length > 0) {
    throw new ConfigError(
      `NODE_ENV=production: Peppol requires https:// addresses, and ${insecure
        .map(([name, url, from]) => `${name} is ${url}${from}`)
        .join('; ')}. Set them (or PUBLIC_BASE_URL) to the https:// address the world reaches.`,
    );
  }
}

/**
 * What a process serving the API refuses to start with: in production (NODE_ENV=production), a /metrics that
 * anyone can read (every workspace's job counts).
 */
export function assertApiConfigSafe(config: Config): void {
  if (config.NODE_ENV === 'production' && !config.METRICS_TOKEN && config.METRICS_PORT === undefined) {
    throw new ConfigError(
      'NODE_ENV=production: /metrics would be open to anyone. Set METRICS_TOKEN (a bearer token of 16+ characters) ' +
        'or METRICS_PORT (a separate listener on METRICS_HOST, default 127.0.0.1, that the public port does not serve).',
    );
  }
}
