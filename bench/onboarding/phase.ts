// A timed phase of the onboarding bench: each party's start time, and the rate and latencies once all arrived.
import { pool } from '../../bin/stack/onboard';

export interface PhaseResult {
  rate: number;
  p50: number;
  p95: number;
  seconds: number;
}

/** Rate over the whole phase (first start to last arrival) and per-party latency percentiles. */
export function phaseResult(starts: number[], ends: number[]): PhaseResult {
  const lat = ends.map((e, i) => e - starts[i]!).sort((a, b) => a - b);
  const span = (Math.max(...ends) - Math.min(...starts)) / 1000;
  const pct = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))]!;
  return { rate: starts.length / span, p50: pct(0.5), p95: pct(0.95), seconds: span };
}

/** `fn` on every item, `concurrency` at a time; returns when each call began. */
export async function timed<T>(
  items: T[],
  concurrency: number,
  fn: (item: T, i: number) => Promise<void>,
): Promise<number[]> {
  const at: number[] = new Array(items.length);
  await pool(items, concurrency, async (item, i) => {
    at[i] = Date.now();
    await fn(item, i);
  });
  return at;
}
