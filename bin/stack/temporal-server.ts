// The real Temporal server (v1.29.1, the release the CLI 1.5.1 embeds), as a self-hosted cluster runs it: its own
// process with persistence and visibility on PostgreSQL, the frontend optionally behind mutual TLS. Fresh databases
// per instance (made and migrated with the server's SQL tool), the namespace and our search attributes registered
// with the same CLI commands as docker-compose.yml's set-up job. Binaries and schema files come from
// scripts/temporal-server-build.sh; no Go or module cache at run time.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALL_SEARCH_ATTRIBUTES } from '../../contract/search-attributes';
import { findTemporalCli } from './cli';
import { freePort } from './ports';
import { writeCertificates } from './temporal-server-certs';
import { PORT_NAMES, serverConfig, type TemporalServerPorts, type TemporalServerTls } from './temporal-server-config';
import { launch, retrying, run, usable, type Cli, type Running } from './temporal-server-process';

export const TEMPORAL_SERVER_VERSION = '1.29.1';
const REPO = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TOOLS = path.join(REPO, '.tools');
const SERVER_BIN = path.join(TOOLS, 'bin', 'temporal-server');
const SQL_TOOL = path.join(TOOLS, 'bin', 'temporal-sql-tool');
const SCHEMA = path.join(TOOLS, 'temporal-server-schema', 'postgresql', 'v12');
const BUILD_HINT = 'run "bash scripts/temporal-server-build.sh" (scripts/setup.sh --test runs it)';

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
  /** Fixed ports (membership ones below 32768: ports.ts); the others picked free at start, kept over restarts. */
  ports?: Partial<TemporalServerPorts>;
  namespace?: string;
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /**
   * The server's PostgreSQL connections at most (20 and 10 by default, as a small production node): a suite beside
   * others on one PostgreSQL takes fewer.
   */
  maxConns?: { persistence: number; visibility: number };
  /** Go's pprof on this port of 127.0.0.1 (`go tool pprof http://127.0.0.1:<port>/debug/pprof/profile`): off by default. */
  pprofPort?: number;
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
      ...(opts.pprofPort && { pprofPort: opts.pprofPort }),
    });
    fs.writeFileSync(path.join(dir, 'config', 'temporal.yaml'), JSON.stringify(config, null, 2));

    child = await launch(SERVER_BIN, dir, logFile, temporal);
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
      child = await launch(SERVER_BIN, dir, logFile, temporal);
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
