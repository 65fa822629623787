// The service's processes as separate children (bin/api.ts, bin/worker.ts), started and watched for a cluster
// (cluster.ts): ready once they say so, their output kept for failure messages, their memory read from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  /** The last lines it printed, for failure messages. */
  output(): string;
  /** Peak resident set size so far (VmHWM), in MB; undefined once it has exited. */
  peakRssMb(): number | undefined;
  /** Resident set size now (VmRSS), in MB; undefined once it has exited. */
  rssMb(): number | undefined;
  exited: Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** A field of /proc/<pid>/status in MB; undefined once the process has exited. */
export function memoryMb(pid: number, field: 'VmHWM' | 'VmRSS'): number | undefined {
  try {
    const kb = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Starts `script` and resolves once it has printed `ready` (an info log line: keep LOG_LEVEL at info or lower). */
export function spawnService(
  name: string,
  script: 'bin/api.ts' | 'bin/worker.ts',
  env: Record<string, string>,
  ready: string,
): Promise<ServiceProcess> {
  // CLUSTER_NODE_ARGS: extra node flags for every service process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env.CLUSTER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script], {
    cwd: REPO,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const proc: ServiceProcess = {
    name,
    child,
    exited,
    output: () => tail,
    peakRssMb: () => memoryMb(child.pid!, 'VmHWM'),
    rssMb: () => memoryMb(child.pid!, 'VmRSS'),
    async kill(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      tail = (tail + d).slice(-64_000); // logs arrive in batches of several KB: keep a few of them
      if (tail.includes(ready)) resolve(proc);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() =>
      reject(
        new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before "${ready}":\n${tail.slice(-4000)}`),
      ),
    );
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not print "${ready}" within 120 s:\n${tail.slice(-4000)}`));
    }, 120_000);
    void exited.then(() => clearTimeout(timer));
    child.stdout!.on('data', () => tail.includes(ready) && clearTimeout(timer));
  });
}
