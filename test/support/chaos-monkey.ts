// The chaos of the chaos suite, running beside the registrations: worker processes killed with SIGKILL at random
// moments (each replaced, as a process manager would), short bursts of 429s on a random simulator, and one restart of
// the Temporal server on demand. Counts what it did, for the test's assertions and summary.
import type { Cluster } from '../../bin/stack/cluster';
import type { ServiceProcess } from '../../bin/stack/service-process';
import type { Faults } from '../../simulators/faults';

export type SimName = 'annuaire' | 'sml' | 'directory';
export const SIM_NAMES: SimName[] = ['annuaire', 'sml', 'directory'];

export interface MonkeyOptions {
  /** Faults each simulator has between bursts (a burst is stacked over them). */
  background: Record<SimName, Faults[]>;
  /** Pause between two kills, in ms: drawn uniformly in [min, max]. */
  killEveryMs: [number, number];
  burstEveryMs: [number, number];
  /** A burst: at most `size` requests answered 429 (with Retry-After) within `ms` (longer until one is), as a rate limit's window would. */
  burst: { size: number; ms: number };
  log: (msg: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const between = ([min, max]: [number, number]) => min + Math.random() * (max - min);
const alive = (p: ServiceProcess) => p.child.exitCode === null && p.child.signalCode === null;

export function startMonkey(c: Cluster, temporal: { restart(): Promise<void> }, o: MonkeyOptions) {
  const counts = { kills: 0, workerStarts: 0, failedWorkerStarts: 0, bursts: 0, temporalRestarts: 0 };
  let running = true;
  let wake!: () => void;
  const stopped = new Promise<void>((r) => (wake = r));
  /** A pause that ends early when the monkey is stopped. */
  const pause = (ms: number) => Promise.race([sleep(ms), stopped]);
  const setBackground = () => {
    for (const s of SIM_NAMES) c.sims[s].setFaults(o.background[s]);
  };
  setBackground();

  /** Like a process manager: start again until it runs (a start fails while Temporal is down). */
  async function replaceWorker(): Promise<void> {
    for (;;) {
      try {
        await c.startWorker();
        counts.workerStarts++;
        return;
      } catch (err) {
        counts.failedWorkerStarts++;
        o.log(`a worker failed to start (${(err as Error).message.split('\n')[0]}); again in 2 s`);
        await sleep(2_000);
      }
    }
  }

  async function killLoop(): Promise<void> {
    while (running) {
      await pause(between(o.killEveryMs));
      const live = c.workers.filter(alive);
      if (!running || live.length === 0) continue;
      const victim = live[Math.floor(Math.random() * live.length)]!;
      victim.child.kill('SIGKILL');
      await victim.exited;
      counts.kills++;
      await replaceWorker();
    }
  }

  async function burstLoop(): Promise<void> {
    while (running) {
      await pause(between(o.burstEveryMs));
      if (!running) break;
      const sim = SIM_NAMES[Math.floor(Math.random() * SIM_NAMES.length)]!;
      const served = () => c.sims[sim].faultsSeen()['429'] ?? 0;
      const before = served();
      c.sims[sim].setFaults([{ status: 429, count: o.burst.size, retryAfterSeconds: 1 }, ...o.background[sim]]);
      counts.bursts++;
      await pause(o.burst.ms);
      // A burst nobody met (the simulators are idle while registrations wait for approval) stays until it is met:
      // every burst the summary counts reached a request.
      while (running && served() === before) await pause(250);
      c.sims[sim].setFaults(o.background[sim]);
    }
  }

  const loops = Promise.all([killLoop(), burstLoop()]);
  return {
    counts,
    /** Restarts the Temporal server (persisted: nothing is lost); workers and APIs must reconnect by themselves. */
    async restartTemporal(): Promise<number> {
      const t0 = Date.now();
      await temporal.restart();
      counts.temporalRestarts++;
      return Date.now() - t0;
    },
    /** Stops the chaos and every injected fault; resolves once the last replacement worker runs. */
    async stop(): Promise<void> {
      running = false;
      wake();
      await loops;
      for (const s of SIM_NAMES) c.sims[s].setFaults(undefined);
    },
  };
}
