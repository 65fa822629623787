// Long file: one process set up in the order it runs (schema, TLS, configuration, start, health); split when a second
// server kind comes.
// The real Temporal server (v1.29.1, the release the CLI 1.5.1 embeds), as a self-hosted cluster runs it: its own
// process with persistence and visibility on PostgreSQL, the frontend optionally behind mutual TLS. Fresh databases
// per instance (made and migrated with the server's SQL tool), the namespace and our search attributes registered
// with the same CLI commands as docker-compose.yml's set-up job. Binaries and schema files come from
// scripts/temporal-server-build.sh; no Go or module cache at run time.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import forge from 'node-forge';
import { ALL_SEARCH_ATTRIBUTES } from '../../contract/search-attributes';
import { findTemporalCli } from './cli';

export const TEMPORAL_SERVER_VERSION = '1.29.1';
const REPO = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TOOLS = path.join(REPO, '.tools');
const SERVER_BIN = path.join(TOOLS, 'bin', 'temporal-server');
const SQL_TOOL = path.join(TOOLS, 'bin', 'temporal-sql-tool');
const SCHEMA = path.join(TOOLS, 'temporal-server-schema', 'postgresql', 'v12');
const BUILD_HINT = 'run "bash scripts/temporal-server-build.sh" (scripts/setup.sh --test runs it)';

const PORT_NAMES = [
  'frontend',
  'frontendMembership',
  'history',
  'historyMembership',
  'matching',
  'matchingMembership',
  'worker',
  'workerMembership',
] as const;
export type TemporalServerPorts = Record<(typeof PORT_NAMES)[number], number>;

export interface TemporalServerTls {
  caPem: string;
  clientCertPem: string;
  clientKeyPem: string;
  /** The name in the frontend's certificate (it also holds 127.0.0.1): the SNI / server name override. */
  serverName: string;
  /** The same PEMs as files, for processes configured with paths. */
  caFile: string;
  clientCertFile: string;
  clientKeyFile: string;
}

export interface TemporalServer {
  /** host:port of the frontend (gRPC). */
  address: string;
  namespace: string;
  tls?: TemporalServerTls;
  /** What @temporalio/client's Connection and @temporalio/worker's NativeConnection take. */
  connectionOptions: {
    address: string;
    tls?: { serverNameOverride: string; serverRootCACertificate: Buffer; clientCertPair: { crt: Buffer; key: Buffer } };
  };
  /** The connection flags for the `temporal` CLI (address and TLS). */
  cliFlags: string[];
  databases: { persistence: string; visibility: string };
  ports: TemporalServerPorts;
  /** The server's process id (one process runs frontend, history, matching and worker); changes on restart. */
  readonly pid: number;
  /** The directory of the config, certificates and `temporal.log` (the server's output, appended over restarts). */
  dir: string;
  logFile: string;
  /** Stops the process (SIGTERM, or SIGKILL for a crash) and starts it again on the same databases and ports. */
  restart(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** Stops the process and drops both databases. Idempotent. */
  stop(): Promise<void>;
}

export interface TemporalServerOptions {
  /** The PostgreSQL to put the databases in; TEST_DATABASE_URL, else the local server as user postgres. */
  postgresUrl?: string;
  /** The databases are named `<prefix>_<random>` and `<prefix>_<random>_visibility`. */
  databasePrefix?: string;
  /** Mutual TLS on the frontend (client certificates required), with certificates generated here. */
  tls?: boolean;
  /** Fixed ports (membership ones below 32768, see freePort); the others picked free at start, kept over restarts. */
  ports?: Partial<TemporalServerPorts>;
  namespace?: string;
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /**
   * The server's PostgreSQL connections at most (20 and 10 by default, as a small production node): a suite beside
   * others on one PostgreSQL takes fewer.
   */
  maxConns?: { persistence: number; visibility: number };
}

export async function startTemporalServer(opts: TemporalServerOptions = {}): Promise<TemporalServer> {
  const serverVersion = await versionOf(SERVER_BIN);
  if (serverVersion !== TEMPORAL_SERVER_VERSION || (await versionOf(SQL_TOOL)) !== TEMPORAL_SERVER_VERSION) {
    throw new Error(
      `Temporal server ${TEMPORAL_SERVER_VERSION} is not built in .tools/bin (temporal-server says ` +
        `${serverVersion ?? 'nothing'}): ${BUILD_HINT}`,
    );
  }
  if (!fs.existsSync(path.join(SCHEMA, 'visibility', 'versioned'))) {
    throw new Error(`the Temporal PostgreSQL schema files are missing (${SCHEMA}): ${BUILD_HINT}`);
  }
  const cli = findTemporalCli();
  const pg = new URL(
    opts.postgresUrl ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  );
  const namespace = opts.namespace ?? 'default';
  const base = `${opts.databasePrefix ?? 'temporal_test'}_${crypto.randomBytes(5).toString('hex')}`;
  // DROP DATABASE in the SQL tool does not quote the name: keep it a plain lower-case identifier.
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(base)) throw new Error(`invalid database prefix: ${opts.databasePrefix}`);
  const databases = { persistence: base, visibility: `${base}_visibility` };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-temporal-server-'));
  const logFile = path.join(dir, 'temporal.log');
  const ports = { ...opts.ports } as TemporalServerPorts;
  for (const name of PORT_NAMES) ports[name] ??= await freePort();
  const address = `127.0.0.1:${ports.frontend}`;
  const tls = opts.tls ? writeCertificates(dir) : undefined;
  const cliFlags = ['--address', address, ...(tls ? tlsFlags(tls) : [])];
  // HOME: no developer's CLI config file or profile applies.
  const temporal: Cli = (args, timeout) => run(cli, [...args, ...cliFlags], { HOME: dir }, timeout);

  const sql = sqlTool(pg);
  let created = false;
  let child: Running | undefined;
  const dropDatabases = async () => {
    const errors: string[] = [];
    for (const db of [databases.persistence, databases.visibility]) {
      // --force: without it the tool asks on stdin, reads end-of-file as "no" and exits 0 without dropping.
      await sql(db, 'drop-database', '--force').catch((e: Error) => errors.push(e.message));
    }
    if (errors.length) throw new Error(`could not drop the Temporal databases: ${errors.join('; ')}`);
  };
  try {
    // Same steps as the auto-setup image: both databases created, versioning tables at 0.0, then every migration.
    for (const [db, schema] of [
      [databases.persistence, 'temporal'],
      [databases.visibility, 'visibility'],
    ] as const) {
      await sql(db, 'create-database');
      created = true;
      await sql(db, 'setup-schema', '-v', '0.0');
      await sql(db, 'update-schema', '-d', path.join(SCHEMA, schema, 'versioned'));
    }
    fs.mkdirSync(path.join(dir, 'config'));
    // JSON is YAML: no YAML library needed.
    const config = serverConfig({
      pg,
      databases,
      ports,
      tls,
      logLevel: opts.logLevel ?? 'info',
      ...(opts.maxConns && { maxConns: opts.maxConns }),
    });
    fs.writeFileSync(path.join(dir, 'config', 'temporal.yaml'), JSON.stringify(config, null, 2));

    child = await launch(dir, logFile, temporal);
    // As the auto-setup image (its default retention) and the compose file's temporal-setup job.
    await retrying(logFile, child, 'create the namespace', () =>
      temporal(['operator', 'namespace', 'create', '--namespace', namespace, '--retention', '24h']),
    );
    for (const { name } of ALL_SEARCH_ATTRIBUTES) {
      const create = ['operator', 'search-attribute', 'create', '--namespace', namespace, '--name', name];
      await retrying(logFile, child, `create the search attribute ${name}`, () =>
        temporal([...create, '--type', 'Keyword']),
      );
    }
    await usable(child, logFile, temporal, namespace);
  } catch (e) {
    await child?.stop('SIGKILL');
    if (created) await dropDatabases().catch(() => undefined);
    throw e;
  }

  let stopped = false;
  return {
    address,
    namespace,
    tls,
    connectionOptions: {
      address,
      ...(tls && {
        tls: {
          serverNameOverride: tls.serverName,
          serverRootCACertificate: Buffer.from(tls.caPem),
          clientCertPair: { crt: Buffer.from(tls.clientCertPem), key: Buffer.from(tls.clientKeyPem) },
        },
      }),
    },
    cliFlags,
    databases,
    ports,
    get pid() {
      return child!.pid;
    },
    dir,
    logFile,
    async restart(signal = 'SIGTERM') {
      if (stopped) throw new Error('the Temporal server was stopped: it cannot restart');
      await child!.stop(signal);
      child = await launch(dir, logFile, temporal);
      await usable(child, logFile, temporal, namespace);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await child!.stop('SIGTERM');
      await dropDatabases();
      fs.rmSync(dir, { recursive: true, force: true }); // its log, config and certificates (the test CA's key)
    },
  };
}

/** The server's configuration: config/development-postgres12.yaml with our ports, databases and TLS. */
function serverConfig(o: {
  pg: URL;
  databases: { persistence: string; visibility: string };
  ports: TemporalServerPorts;
  tls?: TemporalServerTls & {
    serverCertFile: string;
    serverKeyFile: string;
    workerCertFile: string;
    workerKeyFile: string;
  };
  logLevel: string;
  maxConns?: { persistence: number; visibility: number };
}) {
  const datastore = (databaseName: string, maxConns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName,
      connectAddr: `${o.pg.hostname}:${o.pg.port || 5432}`,
      connectProtocol: 'tcp',
      user: decodeURIComponent(o.pg.username) || 'postgres',
      password: decodeURIComponent(o.pg.password),
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  });
  const service = (grpcPort: number, membershipPort: number) => ({
    rpc: { grpcPort, membershipPort, bindOnIP: '127.0.0.1' },
  });
  return {
    log: { stdout: true, level: o.logLevel },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      // Fixed for the life of the databases; 4 is the sample's, plenty for one history node here.
      numHistoryShards: 4,
      datastores: {
        'postgres-default': datastore(o.databases.persistence, o.maxConns?.persistence ?? 20),
        'postgres-visibility': datastore(o.databases.visibility, o.maxConns?.visibility ?? 10),
      },
    },
    global: {
      membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' },
      ...(o.tls && {
        tls: {
          // Clients (our API and workers, the CLI) must present a certificate from the test CA.
          frontend: {
            server: {
              certFile: o.tls.serverCertFile,
              keyFile: o.tls.serverKeyFile,
              clientCaFiles: [o.tls.caFile],
              requireClientAuth: true,
            },
          },
          // The server's own services reach the frontend as its clients (the system workers' SDK, the frontend
          // client every service holds; all take these settings): without a certificate they are refused, and the
          // worker service fails to start, so the server exits about a minute after reporting SERVING.
          systemWorker: {
            certFile: o.tls.workerCertFile,
            keyFile: o.tls.workerKeyFile,
            client: { serverName: o.tls.serverName, rootCaFiles: [o.tls.caFile] },
          },
        },
      }),
    },
    services: {
      frontend: service(o.ports.frontend, o.ports.frontendMembership),
      history: service(o.ports.history, o.ports.historyMembership),
      matching: service(o.ports.matching, o.ports.matchingMembership),
      worker: service(o.ports.worker, o.ports.workerMembership),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: {
          enabled: true,
          initialFailoverVersion: 1,
          rpcName: 'frontend',
          rpcAddress: `127.0.0.1:${o.ports.frontend}`,
        },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } },
    namespaceDefaults: { archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } } },
  };
}

/** The pinned `temporal` CLI with this server's address and TLS flags appended. */
type Cli = (args: string[], timeout?: number) => Promise<string>;

interface Running {
  pid: number;
  exited: Promise<void>;
  isDead(): boolean;
  stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<void>;
}

/** Starts the server process and waits until the frontend reports SERVING. */
async function launch(dir: string, logFile: string, temporal: Cli): Promise<Running> {
  const log = fs.openSync(logFile, 'a');
  const child: ChildProcess = spawn(
    SERVER_BIN,
    ['--root', dir, '--config', 'config', '--env', 'temporal', '--allow-no-auth', 'start'],
    // Own process group, as the dev server: Ctrl-C reaches the test process, which stops the server itself.
    { stdio: ['ignore', log, log], detached: true, env: cleanEnv({}) },
  );
  fs.closeSync(log);
  let dead = false;
  const exited = new Promise<void>((resolve) => child.once('exit', () => ((dead = true), resolve())));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const running: Running = {
    pid: child.pid!,
    exited,
    isDead: () => dead,
    async stop(signal) {
      process.off('exit', killOnExit);
      if (dead) return;
      child.kill(signal);
      // A graceful stop drains for a few seconds; never wait forever.
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
  try {
    await retrying(logFile, running, 'report SERVING', async () => {
      const out = await temporal(['operator', 'cluster', 'health', '--command-timeout', '3s'], 10_000);
      if (!out.includes('SERVING') || out.includes('NOT_SERVING')) throw new Error(out.trim());
    });
  } catch (e) {
    await running.stop('SIGKILL');
    throw e;
  }
  return running;
}

/** Waits until a visibility query on every search attribute answers (the namespace is loaded, the aliases known). */
async function usable(child: Running, logFile: string, temporal: Cli, namespace: string) {
  const query = ALL_SEARCH_ATTRIBUTES.map((sa) => `${sa.name} = "probe"`).join(' OR ');
  await retrying(logFile, child, 'answer a visibility query on our search attributes', () =>
    temporal(['workflow', 'list', '--namespace', namespace, '--query', query, '--limit', '1']),
  );
}

/** Tries `what` every half second for 60 s; fails with the last error and the server log's tail. */
async function retrying<T>(logFile: string, child: Running, what: string, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 60_000;
  let last = '';
  while (Date.now() < deadline) {
    if (child.isDead()) {
      throw new Error(`the Temporal server exited before it could ${what}; ${logFile} ends with:\n${tail(logFile)}`);
    }
    try {
      return await fn();
    } catch (e) {
      last = (e as Error).message;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  throw new Error(
    `the Temporal server did not ${what} within 60 s (last: ${last}); ${logFile} ends with:\n${tail(logFile)}`,
  );
}

/** The last lines of the server's log, each JSON line cut to its level, message and error (no stack traces). */
function tail(file: string, lines = 20): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return '(no log)';
  }
  return text
    .trim()
    .split('\n')
    .slice(-lines)
    .map((line) => {
      try {
        const j = JSON.parse(line) as { level?: string; msg?: string; error?: string };
        return `${j.level}: ${j.msg}${j.error ? ` (${j.error})` : ''}`;
      } catch {
        return line;
      }
    })
    .join('\n');
}

/** Runs the SQL tool on one database; the password goes by environment, not argv. */
function sqlTool(pg: URL) {
  const defaultDb = decodeURIComponent(pg.pathname.slice(1)) || 'postgres';
  return async (db: string, command: string, ...args: string[]) => {
    const global = ['--plugin', 'postgres12', '--ep', pg.hostname, '-p', pg.port || '5432'];
    global.push('-u', decodeURIComponent(pg.username) || 'postgres', '--db', db);
    const defaults = command.endsWith('-database') ? ['--defaultdb', defaultDb] : [];
    try {
      await run(SQL_TOOL, [...global, command, ...defaults, ...args], {
        SQL_PASSWORD: decodeURIComponent(pg.password),
      });
    } catch (e) {
      throw new Error(
        `temporal-sql-tool ${command} on ${db} (PostgreSQL at ${pg.host}) failed: ${(e as Error).message}`,
      );
    }
  };
}

/** Our environment without TEMPORAL_* (a developer's TEMPORAL_ADDRESS or TLS settings must not leak in). */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TEMPORAL_')));
  delete env.XDG_CONFIG_HOME; // the CLI reads its config file from there (HOME is set per call)
  return { ...env, ...extra };
}

function run(bin: string, args: string[], env: Record<string, string>, timeout = 30_000): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(bin, args, { env: cleanEnv(env), timeout, encoding: 'utf8' }, (err, stdout, stderr) =>
      err ? reject(new Error(plain(stderr || stdout || err.message).slice(-2000))) : resolve(stdout),
    ),
  );
}

/** Without the colours the SQL tool puts in its log lines. */
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '').trim();

/**
 * A port free on 127.0.0.1 below 32768. The membership ports must be: the schema stores them in a SMALLINT
 * (cluster_membership.rpc_port), and the OS hands out ephemeral ports above it. Below it, no outgoing connection
 * takes one of ours either.
 */
async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + crypto.randomInt(12_768);
    const free = await new Promise<boolean>((resolve) => {
      const s = net.createServer();
      s.once('error', () => resolve(false));
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

async function versionOf(bin: string): Promise<string | undefined> {
  try {
    return /version (\S+)/.exec(await run(bin, ['--version'], {}))?.[1];
  } catch {
    return undefined;
  }
}

function tlsFlags(tls: TemporalServerTls): string[] {
  return [
    ...['--tls-ca-path', tls.caFile, '--tls-cert-path', tls.clientCertFile, '--tls-key-path', tls.clientKeyFile],
    ...['--tls-server-name', tls.serverName],
  ];
}

/**
 * A test CA, the frontend's certificate (localhost and 127.0.0.1), a client certificate for our processes and one for
 * the server's system workers, written under `<dir>/certs`.
 */
function writeCertificates(dir: string) {
  const certs = path.join(dir, 'certs');
  fs.mkdirSync(certs);
  const ca = issue({ cn: 'PA test Temporal CA', ca: true });
  const server = issue({ cn: 'temporal-frontend', issuer: ca, server: true });
  const client = issue({ cn: 'pa-service', issuer: ca });
  const worker = issue({ cn: 'temporal-system-worker', issuer: ca });
  const write = (name: string, pem: string) => {
    const file = path.join(certs, name);
    fs.writeFileSync(file, pem, { mode: 0o600 });
    return file;
  };
  return {
    caPem: ca.certPem,
    clientCertPem: client.certPem,
    clientKeyPem: client.keyPem,
    serverName: 'localhost',
    caFile: write('ca.pem', ca.certPem),
    clientCertFile: write('client.pem', client.certPem),
    clientKeyFile: write('client.key', client.keyPem),
    serverCertFile: write('server.pem', server.certPem),
    serverKeyFile: write('server.key', server.keyPem),
    workerCertFile: write('system-worker.pem', worker.certPem),
    workerKeyFile: write('system-worker.key', worker.keyPem),
  };
}

interface Issued {
  keyPem: string;
  certPem: string;
  subject: forge.pki.CertificateField[];
}

/** An RSA key (Node's generator: forge's is slow) and its certificate, signed by `issuer` or self-signed. */
function issue(o: { cn: string; ca?: boolean; server?: boolean; issuer?: Issued }): Issued {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  // Positive (leading byte below 0x80): Go's x509 refuses negative serial numbers.
  cert.serialNumber = '01' + crypto.randomBytes(8).toString('hex');
  cert.validity.notBefore = new Date(Date.now() - 3_600_000);
  cert.validity.notAfter = new Date(Date.now() + 365 * 86_400_000);
  const subject = [{ name: 'commonName', value: o.cn }];
  cert.setSubject(subject);
  cert.setIssuer(o.issuer?.subject ?? subject);
  // What Go's and rustls' verifiers insist on: CA flag and key usages, serverAuth/clientAuth, names in the SAN.
  cert.setExtensions(
    o.ca
      ? [
          { name: 'basicConstraints', cA: true, critical: true },
          { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
          { name: 'subjectKeyIdentifier' },
        ]
      : [
          { name: 'basicConstraints', cA: false },
          { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
          { name: 'extKeyUsage', serverAuth: !!o.server, clientAuth: !o.server },
          ...(o.server
            ? [
                {
                  name: 'subjectAltName',
                  altNames: [
                    { type: 2, value: 'localhost' },
                    { type: 7, ip: '127.0.0.1' },
                  ],
                },
              ]
            : []),
        ],
  );
  cert.sign(forge.pki.privateKeyFromPem(o.issuer?.keyPem ?? keyPem), forge.md.sha256.create());
  return { keyPem, certPem: forge.pki.certificateToPem(cert), subject };
}
