// The embedded Temporal dev server: a child process persisting to a SQLite file, with its UI and our
// search attributes. Restarting it on the same file keeps every workflow, including parked ones.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { ALL_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';

export interface DevServer {
  address: string;
  pid: number;
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
}): Promise<DevServer> {
  if (opts.dbFile) fs.mkdirSync(path.dirname(opts.dbFile), { recursive: true });
  const [ip, port] = splitAddress(opts.address);
  const log = fs.openSync(opts.logFile, 'a');
  const child = spawn(
    opts.cli,
    [
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
    ],
    // Own process group: Ctrl-C reaches us only, and we stop the server last, after the worker has drained.
    { stdio: ['ignore', log, log], detached: true },
  );
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await waitReachable(opts.address, exited, opts.logFile);
  return {
    address: opts.address,
    pid: child.pid!,
    uiUrl: `http://${ip}:${opts.uiPort}`,
    stop: async () => {
      await stopChild(child, exited);
      process.off('exit', killOnExit);
    },
  };
}

function splitAddress(address: string): [string, string] {
  const i = address.lastIndexOf(':');
  return [address.slice(0, i), address.slice(i + 1)];
}

async function waitReachable(address: string, exited: Promise<number | null>, logFile: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  let dead = false;
  void exited.then(() => (dead = true));
  while (Date.now() < deadline) {
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

async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
