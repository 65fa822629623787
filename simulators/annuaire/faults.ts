// Fault injection of the Annuaire simulator: error shares per status, latency, held (unanswered) requests, 429 with
// Retry-After, optionally limited to some requests or to a burst of N requests. Pure decisions; the server acts.

export interface AnnuaireFaults {
  /** Share of API requests answered with each status, e.g. { 503: 0.3, 429: 0.1 } (shares add up). */
  errorRates?: Record<number, number>;
  /** Older single-status form: share `rate` (default 1 when `status` is given) answered `status` (default 503). */
  rate?: number;
  status?: number;
  /** Delay before every affected answer. */
  latencyMs?: number;
  /** Share of requests held without any answer for `timeoutMs` (default 30 s), then the connection is dropped. */
  timeoutRate?: number;
  timeoutMs?: number;
  /** Retry-After (seconds) sent with injected 429s (default 1) and 503s (default none). */
  retryAfterSeconds?: number;
  /** `detail` of the injected problems (e.g. a PPF validation message for a 422). */
  detail?: string;
  /**
   * Only requests whose "METHOD /path" (path under the base path) is this, e.g. "POST /ligne-annuaire", or starts with
   * it when it ends with `*` ("PATCH /ligne-annuaire/id-instance:*"). The token endpoint is only hit when named.
   */
  only?: string;
  /** Only the next `count` matching requests, then the faults are spent (deterministic bursts). */
  count?: number;
}

export type FaultAction =
  | { kind: 'none'; latencyMs: number }
  | { kind: 'hold'; latencyMs: number; ms: number }
  | { kind: 'error'; latencyMs: number; status: number; retryAfterSeconds?: number; detail: string };

const NONE: FaultAction = { kind: 'none', latencyMs: 0 };

export function faultInjector(initial?: AnnuaireFaults) {
  let faults = initial;
  let left = initial?.count;
  return {
    set(f: AnnuaireFaults | undefined) {
      faults = f;
      left = f?.count;
    },
    /** What to do with a request; `target` is "METHOD /path". */
    decide(target: string, isToken: boolean, random: () => number = Math.random): FaultAction {
      const f = faults;
      if (!f || (f.only ? !matches(f.only, target) : isToken)) return NONE;
      if (left !== undefined) {
        if (left <= 0) return NONE;
        left--;
      }
      const latencyMs = f.latencyMs ?? 0;
      const rates: [number, number][] = Object.entries(f.errorRates ?? {}).map(([s, r]) => [Number(s), r]);
      if (f.status !== undefined || f.rate !== undefined) rates.push([f.status ?? 503, f.rate ?? 1]);
      let draw = random();
      if (f.timeoutRate && (draw -= f.timeoutRate) < 0) return { kind: 'hold', latencyMs, ms: f.timeoutMs ?? 30_000 };
      for (const [status, rate] of rates) {
        if ((draw -= rate) < 0) {
          const retryAfterSeconds = status === 429 ? (f.retryAfterSeconds ?? 1) : status === 503 ? f.retryAfterSeconds : undefined;
          const detail = f.detail ?? `panne simulée (${status})`;
          return { kind: 'error', latencyMs, status, detail, ...(retryAfterSeconds !== undefined && { retryAfterSeconds }) };
        }
      }
      return { kind: 'none', latencyMs };
    },
  };
}

const matches = (only: string, target: string) => (only.endsWith('*') ? target.startsWith(only.slice(0, -1)) : target === only);
