// The embedded Temporal dev server: a child process persisting to a SQLite file, with its UI and our
// search attributes. Restarting it on the same file keeps every workflow, including parked ones.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { ALL_SEARCH_ATTRIBUTES } from '../../contract/search-attributes';
import { dynamicConfigFlags } from './temporal-dynamic-config';

export interface DevServer {
  address: string;
  /** The server's process. */
  pid: number;
  /** Its process group (that of its guard): nothing is left in it once stopped. */
  processGroup: number;
  uiUrl: string;
  stop(): Promise<void>;
}

export const searchAttributeFlags = () =>
  ALL_SEARCH_ATTRIBUTES.flatMap((k) => [
    '--search-attribute',
    `${k.name}=${k.type === 'KEYWORD' ? 'Keyword' : k.type}`,
  ]);

export async function startDevServer(opts: {
  cli: string;
  /** SQLite file of the history; in memory when absent (gone when the server stops). */
  dbFile?: string;
  address: string;
  uiPort: number;
  namespace: string;
  logFile: string;
  /** Aborts the start: the server is stopped, and the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}): Promise<DevServer> {
  opts.signal?.throwIfAborted();
  if (opts.dbFile) fs.mkdirSync(path.dirname(opts.dbFile), { recursive: true });
  const [ip, port] = splitAddress(opts.address);
  const log = fs.openSync(opts.logFile, 'a');
  const args = [
    'server',
    'start-dev',
    ...(opts.dbFile ? ['--db-filename', opts.dbFile] : []),
    '--ip',
    ip,
    '--port',
    port,
    '--ui-port',
    String(opts.uiPort),
    '--namespace',
    opts.namespace,
    '--log-level',
    'warn',
    ...searchAttributeFlags(),
    ...dynamicConfigFlags(),
  ];
  // Own process group: Ctrl-C reaches us only, and we stop the server last, after the worker has drained. The
  // server runs under a small guard, the group's leader, that stops it when this process goes, however it goes
  // (SIGKILL included: its IPC channel closes).
  const guard = spawn(process.execPath, ['-e', GUARD, opts.cli, ...args], {
    stdio: ['ignore', log, log, 'ipc'],
    detached: true,
  });
  fs.closeSync(log);
  const group = guard.pid!;
  const killGroup = () => {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // gone already
    }
  };
  process.once('exit', killGroup);
  const exited = new Promise<number | null>((resolve) =>
    guard.once('exit', (code, sig) => {
      if (sig) killGroup(); // the guard was killed: the server may be left, orphaned
      process.off('exit', killGroup);
      resolve(code);
    }),
  );
  const serverPid = new Promise<number>((resolve, reject) => {
    guard.once('message', (m: { pid: number }) => resolve(m.pid));
    void exited.then(() => reject(new Error(`the Temporal dev server exited at start; see ${opts.logFile}`)));
  });
  serverPid.catch(() => undefined); // told by waitReachable
  const stop = () => stopGuard(guard, exited, killGroup);
  try {
    await waitReachable(opts.address, exited, opts.logFile, opts.signal);
    return {
      address: opts.address,
      pid: await serverPid,
      processGroup: group,
      uiUrl: `http://${ip}:${opts.uiPort}`,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * The guard (plain JavaScript, run by `node -e`): starts the server (argv: the CLI, its arguments), tells its pid,
 * stops it (SIGTERM, SIGKILL 10 s later) on SIGTERM/SIGINT/SIGHUP or when its parent is gone, and exits with it.
 */
const GUARD = `
const { spawn } = require('node:child_process');
const server = spawn(process.argv[1], process.argv.slice(2), { stdio: ['ignore', 'inherit', 'inherit'] });
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  server.kill('SIGTERM');
  setTimeout(() => server.kill('SIGKILL'), 10000);
};
for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, stop);
process.on('disconnect', stop);
server.once('spawn', () => process.connected && process.send({ pid: server.pid }));
server.once('error', (err) => {
  console.error(String(err));
  process.exit(127);
});
server.once('exit', (code, signal) => process.exit(code ?? 128 + (require('node:os').constants.signals[signal] ?? 0)));
`;

function splitAddress(address: string): [string, string] {
  const i = address.lastIndexOf(':');
  return [address.slice(0, i), address.slice(i + 1)];
}

async function waitReachable(
  address: string,
  exited: Promise<number | null>,
  logFile: string,
  signal?: AbortSignal,
): Promise<void> {
  const deadline = Date.now() + 60_000;
  let dead = false;
  void exited.then(() => (dead = true));
  while (Date.now() < deadline) {
    signal?.throwIfAborted();
    if (dead) throw new Error(`the Temporal dev server exited at start; see ${logFile}`);
    try {
      const conn = await Connection.connect({ address, connectTimeout: 1000 });
      await conn.workflowService.getSystemInfo({});
      await conn.close();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 300));
    }
  }
  throw new Error(`the Temporal dev server did not answer on ${address} within 60 s; see ${logFile}`);
}

/** The guard stops the server and exits with it; past 12 s, the whole group is killed. */
async function stopGuard(guard: ChildProcess, exited: Promise<number | null>, killGroup: () => void): Promise<void> {
  if (guard.exitCode === null && guard.signalCode === null) {
    guard.kill('SIGTERM');
    const timer = setTimeout(killGroup, 12_000);
    await exited;
    clearTimeout(timer);
  }
}
