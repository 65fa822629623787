// CPU seconds used by processes (Linux /proc), to show where a phase's time goes on a shared machine.
import fs from 'node:fs';

const TICKS_PER_S = 100; // USER_HZ on Linux

function cpuOfPid(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // the command name may hold spaces
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S; // utime + stime
  } catch {
    return 0; // gone
  }
}

/** Every process whose command name is `comm` (e.g. the PostgreSQL backends). */
function pidsNamed(comm: string): number[] {
  return fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).filter((pid) => {
    try { return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === comm; } catch { return false; }
  });
}

export type CpuSnapshot = Record<string, number>;

/** CPU seconds so far of each named group; `postgres` sums all backends (they come and go). */
export function cpuSnapshot(groups: Record<string, number[] | 'postgres'>): CpuSnapshot {
  const out: CpuSnapshot = {};
  for (const [name, pids] of Object.entries(groups)) {
    out[name] = (pids === 'postgres' ? pidsNamed('postgres') : pids).reduce((s, pid) => s + cpuOfPid(pid), 0);
  }
  return out;
}

export const cpuDelta = (a: CpuSnapshot, b: CpuSnapshot): CpuSnapshot => Object.fromEntries(Object.keys(b).map((k) => [k, b[k]! - (a[k] ?? 0)]));

export const formatCpu = (d: CpuSnapshot) => Object.entries(d).map(([k, v]) => `${k} ${v.toFixed(1)} s`).join(', ');

/** CPU milliseconds per party: of every process, and of Temporal and the worker alone (the floor has only those). */
export function perParty(d: CpuSnapshot, parties: number): string {
  const ms = (keys: string[]) => ((1000 * keys.reduce((s, k) => s + Math.max(0, d[k] ?? 0), 0)) / parties).toFixed(0);
  return `${ms(Object.keys(d))} ms (Temporal + worker ${ms(['temporal', 'worker'])} ms)`;
}
