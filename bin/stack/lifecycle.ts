// Start-up and stop of a process made of parts (child processes, servers, pools, connections), clean at any moment.
// The SIGINT/SIGTERM handlers are installed first; each part, once started, registers how to stop it. A signal during
// start-up aborts the stage under way when it can be aborted (its `signal`), or lets it finish (opening and migrating
// PGlite: left in the middle, it would have to recover); no further stage starts, the parts started so far are stopped
// in reverse order, and the process exits with 128 + the signal's number (130, 143): the start was interrupted. Once
// `ready()`, a signal is an ordinary stop: the same reverse order, exit 0. Signals met while stopping are ignored (npm,
// tsx and a terminal may each deliver the same Ctrl-C); SIGKILL remains, and even then the Temporal dev server is
// stopped by its guard (dev-server.ts).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

/** Thrown by `check()` (and the aborted stages) once a signal came during start-up. */
export class StartInterrupted extends Error {
  constructor(readonly by: NodeJS.Signals) {
    super(`start-up interrupted by ${by}`);
    this.name = 'StartInterrupted';
  }
}

export interface Lifecycle {
  /** Aborted (its reason a StartInterrupted) by the first SIGINT/SIGTERM of the start-up: stages that can, stop. */
  readonly signal: AbortSignal;
  /** Registers how to stop a part that has just started; parts are stopped in the reverse order. */
  onStop(name: string, stop: () => unknown): void;
  /** Between stages: throws StartInterrupted if a signal came. */
  check(): void;
  /** Start-up is over: a signal now stops the process normally (exit 0). */
  ready(): void;
  /** Stops every part started, in reverse order (failures are told, not fatal), then exits with `exitCode`. */
  stop(reason: string, exitCode: number): Promise<void>;
  /** Where main()'s failure ends: exit 128 + n after a signal, 1 otherwise — after stopping what was started. */
  fail(err: unknown): Promise<void>;
}

/** `say` tells what it does; `warn`, what went wrong. */
export function lifecycle(say: (msg: string) => void, warn: (msg: string) => void = say): Lifecycle {
  const stoppers: { name: string; stop: () => unknown }[] = [];
  const controller = new AbortController();
  let ready = false;
  let stopping = false;

  const stop = async (reason: string, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    say(`${reason}: stopping…`);
    for (const s of stoppers.reverse()) {
      try {
        await s.stop();
      } catch (err) {
        warn(`stopping the ${s.name} failed: ${err instanceof Error ? err.message : err}`);
      }
    }
    say('stopped.');
    process.exit(exitCode);
  };

  const onSignal = (sig: NodeJS.Signals) => {
    if (stopping || controller.signal.aborted) return say(`${sig}: stopping already`);
    if (ready) return void stop(sig, 0);
    say(`${sig} during start-up: interrupting it…`);
    // The stage under way rejects at once if it can be interrupted, else finishes; then main() stops everything.
    controller.abort(new StartInterrupted(sig));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  watchNpmShell(() => {
    say("npm's shell is gone (npm passed it a signal): taken as a SIGTERM");
    onSignal('SIGTERM');
  });

  return {
    signal: controller.signal,
    onStop: (name, fn) => void stoppers.push({ name, stop: fn }),
    check: () => controller.signal.throwIfAborted(),
    ready: () => void (ready = true),
    stop,
    fail: (err) => {
      const interrupted = controller.signal.reason;
      if (interrupted instanceof StartInterrupted) return stop(interrupted.message, exitCodeOf(interrupted.by));
      warn(`failed: ${err instanceof Error ? err.message : err}`);
      return stop('start-up failed', 1);
    },
  };
}

/** The shell's convention for a process ended by a signal: 128 + its number (SIGINT 130, SIGTERM 143). */
export const exitCodeOf = (sig: NodeJS.Signals) => 128 + (os.constants.signals[sig] ?? 0);

/**
 * `promise`, or its abandonment when `signal` aborts (rejecting with the signal's reason) — for a stage that cannot
 * itself be interrupted but may be left behind (the process is about to exit); `dispose` gets its result if it comes
 * after all.
 */
export function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal, dispose?: (v: T) => unknown): Promise<T> {
  if (signal.aborted) {
    void promise.then(dispose, () => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      void promise.then(dispose, () => undefined);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) return; // already rejected (and disposed)
        resolve(v);
      },
      (err) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/**
 * Run as an npm script, this process is the child (through tsx's CLI, the grandchild) of the shell npm runs the script
 * with. npm passes a SIGTERM/SIGINT to that shell only, and the shell (dash) dies of it without passing it on: this
 * process would be left running, orphaned. The shell's going is therefore taken as a SIGTERM (checked twice a second).
 */
function watchNpmShell(gone: () => void) {
  if (!process.env.npm_lifecycle_event) return;
  const viaTsxCli = process.execArgv.some((a) => /tsx[\\/]dist[\\/]preflight\.cjs$/.test(a));
  const shell = viaTsxCli ? parentOf(process.ppid) : process.ppid;
  if (!shell || shell === 1) return;
  const timer = setInterval(() => {
    try {
      process.kill(shell, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') return;
      clearInterval(timer);
      gone();
    }
  }, 500);
  timer.unref();
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = `/proc/${pid}/stat`;
    const text = fs.existsSync(stat) ? fs.readFileSync(stat, 'utf8') : undefined;
    const ppid = text
      ? text.slice(text.lastIndexOf(')') + 2).split(' ')[1] // "pid (comm) state ppid …"
      : execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8' });
    return Number(ppid) || undefined;
  } catch {
    return undefined;
  }
}
