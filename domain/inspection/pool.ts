// A bounded pool of child processes inspecting untrusted files off the API's event loop. Children are forked once
// and reused (their imports stay warm). Each job has a time budget and a memory budget: the child's V8 heap is
// capped by --max-old-space-size, and its whole resident size (zlib's and libvips' buffers are outside the heap)
// is polled from /proc and the child killed over budget. A child is replaced after any failure.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Answer, Job, JobResults } from './jobs';
import { RefusedFile } from './refusal';
import { admits, ServiceOrder, type Owner } from './fair-share';

export interface PoolOptions {
  /** child processes */
  size: number;
  /** jobs waiting for a child; beyond, callers are told to come back (BusyError) */
  queue: number;
  /** time one job may take */
  timeMs: number;
  /** resident memory a child may reach while working */
  memoryMb: number;
}

/** The pool and its queue are full: retry after `retryAfterS` seconds. */
export class BusyError extends Error {
  constructor(readonly retryAfterS: number) {
    super(`file checks are busy: retry in ${retryAfterS} s`);
  }
}

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'child-boot.mjs');
const POLL_MS = 20;
/** how much lower than the API's the children's scheduling priority is (nice) */
const CHILD_NICENESS = 5;

interface Pending {
  id: number;
  job: Job;
  /** whose file it is: one workspace, or one registration, cannot hold the pool while others wait */
  owner?: Owner;
  resolve(v: unknown): void;
  reject(e: Error): void;
}

interface Slot {
  child: ChildProcess;
  ready: boolean;
  job?: Pending;
  timer?: NodeJS.Timeout;
  watch?: NodeJS.Timeout;
  startedAt?: number;
}

/** What checks one owner's files: the pool, bound to the owner. */
export type FileChecker = { run: <K extends Job['kind']>(job: Extract<Job, { kind: K }>) => Promise<JobResults[K]> };

export class InspectionPool {
  private slots: Slot[] = [];
  private waiting: Pending[] = [];
  private nextId = 1;
  private closed = false;
  private failedStarts = 0;
  /** how long a job takes, on average lately: what a caller told to come back should wait */
  private jobMs = 250;
  private order = new ServiceOrder();

  constructor(readonly options: PoolOptions) {
    for (let i = 0; i < options.size; i++) this.slots.push(this.spawn());
  }

  /**
   * `owner`: whose file it is; the pool is shared between owners (fair-share.ts). Beyond its share, or a full queue,
   * the caller is told to come back (BusyError, with the time the queue takes to drain).
   */
  run<K extends Job['kind']>(job: Extract<Job, { kind: K }>, owner?: Owner): Promise<JobResults[K]> {
    if (this.closed) return Promise.reject(new Error('the inspection pool is closed'));
    const free = this.slots.some((s) => s.ready && !s.job);
    if (
      (!free && this.waiting.length >= this.options.queue) ||
      (owner && !admits(this.owners(), owner, { ...this.options, waiting: this.waiting.length, free }))
    ) {
      return Promise.reject(new BusyError(this.expectedWaitS()));
    }
    return new Promise((resolve, reject) => {
      this.waiting.push({ id: this.nextId++, job, owner, resolve: resolve as (v: unknown) => void, reject });
      this.dispatch();
      this.keepAlive();
    });
  }

  /** The pool as the files of one registration (`registration`, its entry id) of `workspace` use it. */
  ownedBy(workspace: string, registration: string): FileChecker {
    const owner = { workspace, registration };
    return { run: (job) => this.run(job, owner) };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.waiting.splice(0)) p.reject(new Error('the inspection pool is closed'));
    await Promise.all(this.slots.map((s) => this.stop(s, new Error('the inspection pool is closed'))));
  }

  private spawn(): Slot {
    const child = fork(CHILD, [], {
      // The heap's cap below the resident budget, so V8 collects before the watch would kill the child for garbage
      // (a heap allowed the whole budget let a legitimate seal reach it in CI); pdf.js needs ~100 MB of heap to load.
      execArgv: [`--max-old-space-size=${Math.max(192, Math.floor(this.options.memoryMb * 0.6))}`],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    // Below the API in the CPU's queue: a flood of costly files slows the checks, not every other request.
    if (child.pid)
      try {
        os.setPriority(child.pid, Math.min(19, os.getPriority() + CHILD_NICENESS));
      } catch {
        /* not allowed here: the children run at the API's priority */
      }
    const slot: Slot = { child, ready: false };
    child.on('message', (msg: Answer | 'ready') => {
      if (msg === 'ready') {
        slot.ready = true;
        this.failedStarts = 0;
        return this.dispatch();
      }
      if (slot.job?.id !== msg.id) return;
      const job = this.finish(slot);
      if (msg.ok) job.resolve(msg.result);
      else if ('refusal' in msg) job.reject(new RefusedFile(msg.refusal));
      else {
        job.reject(new Error(`the file check failed: ${msg.error.split('\n')[0]}`));
        this.replace(slot);
      }
    });
    child.once('exit', (code, signal) => {
      const job = slot.job && this.finish(slot);
      job?.reject(tooComplex(`the checker stopped (${signal ?? `exit ${code}`})`));
      if (this.closed || !this.slots.includes(slot)) return;
      if (slot.ready) return this.replace(slot);
      // A child that cannot even start (a broken install, too little memory): no respawn storm, and nobody waits
      // for it — waiting files are told to come back, and the next start is tried after a growing pause.
      this.failedStarts++;
      for (const p of this.waiting.splice(0)) p.reject(new BusyError(5));
      const pause = Math.min(30_000, 500 * 2 ** Math.min(6, this.failedStarts));
      setTimeout(() => this.replace(slot), pause).unref();
    });
    child.on('error', () => undefined); // 'exit' follows
    child.unref();
    this.keepAlive(slot);
    return slot;
  }

  /** The owners of the jobs in the pool, waiting or being checked. */
  private owners(): Owner[] {
    const owners: Owner[] = [];
    for (const p of this.waiting) if (p.owner) owners.push(p.owner);
    for (const s of this.slots) if (s.job?.owner) owners.push(s.job.owner);
    return owners;
  }

  private dispatch() {
    for (const slot of this.slots) {
      if (!slot.ready || slot.job || this.closed) continue;
      const next = this.order.takeNext(this.waiting);
      if (!next) return;
      slot.job = next;
      slot.startedAt = performance.now();
      slot.child.send({ id: next.id, job: next.job });
      slot.timer = setTimeout(
        () => this.overBudget(slot, `took longer than ${this.options.timeMs / 1000} s to check (the limit)`),
        this.options.timeMs,
      );
      slot.watch = setInterval(() => {
        const rss = residentMb(slot.child.pid);
        if (rss > this.options.memoryMb)
          this.overBudget(slot, `needed more than ${this.options.memoryMb} MB of memory to check (the limit)`);
      }, POLL_MS);
    }
  }

  /** Children keep the process alive only while files wait or are being checked: an idle pool does not. */
  private keepAlive(only?: Slot) {
    const needed = this.waiting.length > 0 || this.slots.some((s) => s.job);
    for (const slot of only ? [only] : this.slots) {
      const channel = slot.child.channel as { ref?(): void; unref?(): void } | undefined;
      if (needed) channel?.ref?.();
      else channel?.unref?.();
    }
  }

  /** Seconds until the queue has drained, at the recent pace. */
  private expectedWaitS(): number {
    return Math.max(1, Math.ceil(((this.waiting.length + 1) * this.jobMs) / Math.max(1, this.options.size) / 1000));
  }

  /** Ends the slot's job: timers off, the slot free (the caller settles the job). */
  private finish(slot: Slot): Pending {
    const job = slot.job!;
    if (slot.startedAt !== undefined) this.jobMs = 0.8 * this.jobMs + 0.2 * (performance.now() - slot.startedAt);
    clearTimeout(slot.timer);
    clearInterval(slot.watch);
    slot.job = undefined;
    if (job.owner) this.order.forget(job.owner, this.owners());
    queueMicrotask(() => {
      this.dispatch();
      this.keepAlive();
    });
    return job;
  }

  private overBudget(slot: Slot, why: string) {
    if (!slot.job) return;
    this.finish(slot).reject(tooComplex(why));
    this.replace(slot);
  }

  /** Kills a child that failed or went over budget, and starts a fresh one in its place. */
  private replace(slot: Slot) {
    const i = this.slots.indexOf(slot);
    if (i < 0 || this.closed) return;
    this.slots[i] = this.spawn();
    void this.stop(slot);
  }

  private stop(slot: Slot, reason?: Error): Promise<void> {
    if (slot.job) this.finish(slot).reject(reason ?? new Error('stopped'));
    slot.child.removeAllListeners('exit');
    if (slot.child.exitCode !== null || slot.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      slot.child.once('exit', () => resolve());
      slot.child.kill('SIGKILL');
    });
  }
}

const tooComplex = (why: string) =>
  new RefusedFile({ code: 'too-complex', reason: `is too complex to check: it ${why}` });

/** The resident size of a process (Linux); 0 where /proc is not there (the heap cap still applies). */
function residentMb(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1];
    return kb ? Number(kb) / 1024 : 0;
  } catch {
    return 0;
  }
}
