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
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === comm;
      } catch {
        return false;
      }
    });
}

/** The processes and their children (the API's file-inspection children count as the API's work). */
export function withChildren(pids: number[]): number[] {
  const parentOf = (pid: number) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      return -1;
    }
  };
  const all = fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number);
  return [...pids, ...all.filter((pid) => pids.includes(parentOf(pid)))];
}

/** CPU seconds of each named group over a phase. */
export type CpuSnapshot = Record<string, number>;
/** CPU seconds so far of each process of each group, by pid. */
export type CpuReading = Record<string, Map<number, number>>;

/** Reads each named group; `postgres` is every backend (they come and go). */
export function cpuSnapshot(groups: Record<string, number[] | 'postgres'>): CpuReading {
  return Object.fromEntries(
    Object.entries(groups).map(([name, pids]) => [
      name,
      new Map((pids === 'postgres' ? pidsNamed('postgres') : pids).map((pid) => [pid, cpuOfPid(pid)])),
    ]),
  );
}

/**
 * CPU used between two readings, process by process: one that started in between counts from zero, one that ended
 * in between is left out (its last seconds are lost, rather than its whole life counted against the phase).
 */
export function cpuDelta(a: CpuReading, b: CpuReading): CpuSnapshot {
  return Object.fromEntries(
    Object.entries(b).map(([name, now]) => {
      let sum = 0;
      for (const [pid, s] of now) if (s > 0) sum += s - (a[name]?.get(pid) ?? 0);
      return [name, sum];
    }),
  );
}

export const formatCpu = (d: CpuSnapshot) =>
  Object.entries(d)
    .map(([k, v]) => `${k} ${v.toFixed(1)} s`)
    .join(', ');

/** CPU milliseconds per party of the groups named (those left out, e.g. the load generator, are not summed). */
export function msPerParty(d: CpuSnapshot, groups: string[], parties: number): number {
  return (1000 * groups.reduce((s, k) => s + Math.max(0, d[k] ?? 0), 0)) / parties;
}
