// The self-built Temporal server's process: started in its own process group, waited for until it serves, stopped
// gracefully with a bound; and the commands run beside it (its SQL tool, the CLI) with a clean environment.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { ALL_SEARCH_ATTRIBUTES } from '../../contract/search-attributes';

/** The pinned `temporal` CLI with this server's address and TLS flags appended. */
export type Cli = (args: string[], timeout?: number) => Promise<string>;

export interface Running {
  pid: number;
  exited: Promise<void>;
  isDead(): boolean;
  stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<void>;
}

/** Starts the server process and waits until the frontend reports SERVING. */
export async function launch(serverBin: string, dir: string, logFile: string, temporal: Cli): Promise<Running> {
  const log = fs.openSync(logFile, 'a');
  const child: ChildProcess = spawn(
    serverBin,
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
export async function usable(child: Running, logFile: string, temporal: Cli, namespace: string) {
  const query = ALL_SEARCH_ATTRIBUTES.map((sa) => `${sa.name} = "probe"`).join(' OR ');
  await retrying(logFile, child, 'answer a visibility query on our search attributes', () =>
    temporal(['workflow', 'list', '--namespace', namespace, '--query', query, '--limit', '1']),
  );
}

/** Tries `what` every half second for 60 s; fails with the last error and the server log's tail. */
export async function retrying<T>(logFile: string, child: Running, what: string, fn: () => Promise<T>): Promise<T> {
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

/** Our environment without TEMPORAL_* (a developer's TEMPORAL_ADDRESS or TLS settings must not leak in). */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TEMPORAL_')));
  delete env.XDG_CONFIG_HOME; // the CLI reads its config file from there (HOME is set per call)
  return { ...env, ...extra };
}

export function run(bin: string, args: string[], env: Record<string, string>, timeout = 30_000): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(bin, args, { env: cleanEnv(env), timeout, encoding: 'utf8' }, (err, stdout, stderr) =>
      err ? reject(new Error(plain(stderr || stdout || err.message).slice(-2000))) : resolve(stdout),
    ),
  );
}

/** Without the colours the SQL tool puts in its log lines. */
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '').trim();
