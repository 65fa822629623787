// `npm start` stops cleanly at any moment (bin/stack/lifecycle.ts): a SIGTERM or SIGINT while the Temporal dev server
// starts, while the store opens and migrates (a fresh PGlite: its creation), while the workflows are bundled — through
// `npm start` itself too, npm's pid signalled — or once ready. Each time the process exits soon (130/143 during
// start-up, 0 once ready), having started no further stage; nothing of the dev server is left (no process in its
// process group, none naming the data directory) and the ports of the API, Temporal, its UI and the simulators are
// free. The next start, on the same data directory and ports, gets to ready and answers. And a dev server whose parent
// is SIGKILLed is stopped by its guard.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePorts, freePortsFor } from '../../bin/stack/ports';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';

const repo = path.join(__dirname, '..', '..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-signals-'));

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const sock = net.connect(port, '127.0.0.1', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });

/** Processes (but this one) whose command line names the data directory: the dev server (its --db-filename). */
function processesNamingDataDir(): string[] {
  if (!fs.existsSync('/proc/self/cmdline')) return [];
  const found: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    if (Number(pid) === process.pid) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmd.includes(dataDir)) found.push(`${pid}: ${cmd.slice(0, 200)}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

const groupAlive = (pgid: number) => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Whether the process is (still) a dev server's guard, its group's leader: not a later process given its pid. */
function isGuard(pid: number): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('start-dev');
  } catch {
    return false;
  }
}

let ports: Record<'api' | 'temporal' | 'ui' | 'annuaire' | 'sml' | 'directory' | 'smlDns' | 'recherche', number>;
let child: ChildProcess | undefined;
const groups = new Set<number>(); // the dev servers' process groups seen: killed in afterAll should a test fail
let output = '';

interface Run {
  /** the output line (a regexp on it) at which to signal */
  at: RegExp;
  /** after this many ms more */
  delayMs?: number;
  signal: NodeJS.Signals;
  /** `npm start` (npm's pid is signalled) rather than node running bin/start.ts */
  npm?: boolean;
  /** done before signalling */
  before?: () => Promise<void>;
}

/** Starts the stack, signals it at `run.at`, and waits for its exit: its code or signal, and how long it took. */
async function startAndSignal(run: Run): Promise<{ code: number | null; ms: number; out: string }> {
  output = '';
  const [cmd, args] = run.npm
    ? ['npm', ['start', '--silent']]
    : [process.execPath, ['--import', 'tsx', 'bin/start.ts']];
  const c = spawn(cmd, args, {
    cwd: repo,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      API_PORT: String(ports.api),
      TEMPORAL_ADDRESS: `127.0.0.1:${ports.temporal}`,
      TEMPORAL_UI_PORT: String(ports.ui),
      ANNUAIRE_SIM_PORT: String(ports.annuaire),
      SML_SIM_PORT: String(ports.sml),
      PEPPOL_DIRECTORY_SIM_PORT: String(ports.directory),
      SML_SIM_DNS_PORT: String(ports.smlDns),
      RECHERCHE_ENTREPRISES_SIM_PORT: String(ports.recherche),
      INSPECT_POOL_SIZE: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = c;
  // Closed once every process holding its output has gone: under npm, the stack outlives npm by its stop.
  const exited = new Promise<number | null>((resolve) =>
    c.once('close', (code, sig) => resolve(code ?? (sig ? 128 + os.constants.signals[sig] : null))),
  );
  let seen = false;
  let signalledAt = 0;
  const take = (d: Buffer) => {
    output += d;
    for (const m of String(d).matchAll(/process group (\d+)/g)) groups.add(Number(m[1]));
    if (!seen && run.at.test(output)) {
      seen = true;
      void (async () => {
        await new Promise((r) => setTimeout(r, run.delayMs ?? 0));
        await run.before?.().catch(() => undefined); // what it found is asserted by the caller
        signalledAt = Date.now();
        c.kill(run.signal);
      })();
    }
  };
  c.stdout!.on('data', take);
  c.stderr!.on('data', take);
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([
    exited,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no exit within 120 s (signalled: ${!!signalledAt})`)), 120_000);
    }),
  ]).finally(() => clearTimeout(timer));
  if (!signalledAt) throw new Error(`exited (${code}) before being signalled at ${run.at}`);
  return { code, ms: Date.now() - signalledAt, out: output };
}

/** Nothing left: the dev server's group gone, no process naming the data directory, every port free. */
async function expectNothingLeft() {
  for (const g of groups) expect(groupAlive(g), `process group ${g}`).toBe(false);
  expect(processesNamingDataDir()).toEqual([]);
  for (const [name, port] of Object.entries(ports)) expect(await portOpen(port), `${name} port ${port}`).toBe(false);
}

beforeAll(async () => {
  // Below the ephemeral range and distinct (ports.ts): none taken between the pick and the stack's bind.
  ports = await freePortsFor(['api', 'temporal', 'ui', 'annuaire', 'sml', 'directory', 'smlDns', 'recherche']);
});

afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  for (const g of groups) if (isGuard(g) && groupAlive(g)) process.kill(-g, 'SIGKILL');
  for (const p of processesNamingDataDir()) process.kill(Number(p.split(':')[0]), 'SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start stops cleanly at any moment', () => {
  const showOutput = () => onTestFailed(() => console.error(`the stack printed:\n${output.slice(-20_000)}`));
  const DEV_SERVER = /\[start\] Temporal dev server \(/;
  const STORE = /\[start\] Temporal dev server up/; // the store is opened right after
  const BUNDLING = /\[start\] bundling workflows/;
  const READY = /Ctrl-C stops everything/;

  it('SIGTERM while the Temporal dev server starts', async () => {
    showOutput();
    const { code, ms, out } = await startAndSignal({ at: DEV_SERVER, signal: 'SIGTERM' });
    expect(code).toBe(143);
    expect(ms).toBeLessThan(10_000);
    expect(out).toContain('SIGTERM during start-up');
    expect(out).not.toMatch(/\[start\] store:/); // no further stage
    await expectNothingLeft();
  }, 60_000);

  // The first open of the store creates PGlite's database and migrates it: it cannot be interrupted, it finishes.
  it('SIGINT while the store is created and migrated', async () => {
    showOutput();
    const { code, out } = await startAndSignal({ at: STORE, signal: 'SIGINT' });
    expect(code).toBe(130);
    expect(out).not.toMatch(BUNDLING);
    expect(out).toMatch(/\[start\] stopped\./);
    await expectNothingLeft();
  }, 90_000);

  // Bundling takes seconds (webpack): it is abandoned at once, not waited for. npm passes the signal to its shell
  // only, which dies of it (dash): bin/start.ts, left with tsx as its parent, sees the shell gone and stops as on a
  // SIGTERM, after npm has exited.
  it('SIGTERM to npm start while the workflows are bundled', async () => {
    showOutput();
    const { ms, out } = await startAndSignal({ at: BUNDLING, delayMs: 1000, signal: 'SIGTERM', npm: true });
    expect(ms).toBeLessThan(10_000);
    expect(out).not.toMatch(READY);
    expect(out).toMatch(/\[start\] SIGTERM during start-up/); // told by npm's shell going (see above)
    expect(out).toMatch(/\[start\] stopped\./);
    await expectNothingLeft();
  }, 90_000);

  // However its parent goes — SIGKILL included (tsx's CLI SIGKILLs a child slow to take a signal) — the dev server's
  // guard stops it.
  it('the Temporal dev server does not outlive its parent killed outright', async () => {
    const orphanPorts = await freePorts(2);
    const script = `
      const { startDevServer } = await import('./bin/stack/dev-server.ts');
      const { findTemporalCli } = await import('./bin/stack/cli.ts');
      const s = await startDevServer({ cli: findTemporalCli(), address: '127.0.0.1:${orphanPorts[0]}',
        uiPort: ${orphanPorts[1]}, namespace: 'default', logFile: '${path.join(dataDir, 'orphan.log')}' });
      console.log('process group ' + s.processGroup);`;
    const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: repo,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child = parent;
    const group = await new Promise<number>((resolve, reject) => {
      parent.stdout!.on('data', (d: Buffer) => {
        const m = /process group (\d+)/.exec(String(d));
        if (m) resolve(Number(m[1]));
      });
      parent.once('exit', (code) => reject(new Error(`exited (${code}) before its dev server was up`)));
    });
    groups.add(group);
    expect(groupAlive(group)).toBe(true);
    parent.kill('SIGKILL');
    await expect.poll(() => groupAlive(group), { timeout: 15_000, interval: 200 }).toBe(false);
  }, 60_000);

  // After all these interruptions, the same data directory starts, answers, and stops with exit 0.
  it('SIGINT once ready, after a start on the same data directory', async () => {
    showOutput();
    let ping: number | undefined;
    const before = async () => void (ping = (await fetch(`http://127.0.0.1:${ports.api}/utils/v1/ping`)).status);
    const { code, ms } = await startAndSignal({ at: READY, signal: 'SIGINT', before });
    expect(ping).toBe(200);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(15_000);
    await expectNothingLeft();
  }, 120_000);
});
