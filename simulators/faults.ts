// Fault injection shared by the simulators (Annuaire, SML, Peppol Directory): error shares per status, latency,
// held (unanswered) requests, requests carried out whose answer never comes, 429/503 with Retry-After; optionally
// limited to some requests (by method and path, or by a text in the body) or to a burst of N requests. Several rule
// sets can be stacked: the first one that applies to a request decides it, so a burst or a targeted refusal can sit
// over a background rate. Pure decisions plus one helper to carry them out; each server answers injected errors in
// its own format.
import type http from 'node:http';
import { z } from 'zod';

export const faultsSchema = z.strictObject({
  /** Share of requests answered with each status, e.g. { 503: 0.3, 429: 0.1 } (shares add up). */
  errorRates: z.record(z.string().regex(/^[1-5]\d\d$/), z.number().min(0).max(1)).optional(),
  /** Older single-status form: share `rate` (default 1 when `status` is given) answered `status` (default 503). */
  rate: z.number().min(0).max(1).optional(),
  status: z.number().int().min(100).max(599).optional(),
  /** Delay before every affected answer. */
  latencyMs: z.number().int().min(0).optional(),
  /** Share of requests held without any answer for `timeoutMs` (default 30 s), then the connection is dropped. */
  timeoutRate: z.number().min(0).max(1).optional(),
  timeoutMs: z.number().int().min(0).optional(),
  /**
   * Share of requests carried out whose answer is then held for `timeoutMs` and dropped: the client times out although
   * the work was done (a create retried after this finds its own result).
   */
  timeoutAfterWorkRate: z.number().min(0).max(1).optional(),
  /** Retry-After (seconds) sent with injected 429s (default 1) and 503s (default none). */
  retryAfterSeconds: z.number().int().min(0).optional(),
  /** What the injected errors say (e.g. a PPF validation message for a 422). */
  detail: z.string().optional(),
  /**
   * Only requests whose "METHOD /path" is this, e.g. "POST /ligne-annuaire" (Annuaire paths are under its base path),
   * or starts with it when it ends with `*` ("PATCH /ligne-annuaire/id-instance:*"). The Annuaire's token endpoint
   * is only hit when named.
   */
  only: z.string().optional(),
  /** Only requests whose body contains this text (e.g. one party's SIREN). */
  bodyIncludes: z.string().min(1).optional(),
  /** Only the next `count` matching requests, then these faults are spent (deterministic bursts). */
  count: z.number().int().min(0).optional(),
  /** Requests not failed otherwise are carried out, then the connection is dropped unanswered. */
  loseResponses: z.boolean().optional(),
});

export type Faults = z.infer<typeof faultsSchema>;
/** One rule set, or several stacked (the first that applies to a request decides it). */
export type FaultSetting = Faults | Faults[];
/** Checks a setting read from JSON; each issue names its path. */
export function parseFaultSetting(
  json: unknown,
): { ok: true; setting: FaultSetting } | { ok: false; issues: string[] } {
  const r = Array.isArray(json) ? z.array(faultsSchema).safeParse(json) : faultsSchema.safeParse(json);
  return r.success
    ? { ok: true, setting: r.data }
    : { ok: false, issues: r.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`) };
}

export type FaultAction =
  | {
      kind: 'none';
      latencyMs: number;
      loseResponse: boolean;
      /** hold the lost answer this long before dropping */ holdMs?: number;
    }
  | { kind: 'hold'; latencyMs: number; ms: number }
  | { kind: 'error'; latencyMs: number; status: number; retryAfterSeconds?: number; detail: string };

export interface FaultRequest {
  /** "METHOD /path". */
  target: string;
  body?: string;
  /** Left alone unless a rule names it in `only` (the Annuaire's token endpoint). */
  exempt?: boolean;
}

const NONE: FaultAction = { kind: 'none', latencyMs: 0, loseResponse: false };

/** `describe` words the injected errors that have no `detail`. */
export function faultInjector(
  initial?: FaultSetting,
  describe = (status: number) => `injected fault (simulator): ${status}`,
) {
  let layers: { f: Faults; left?: number }[] = [];
  /** What was injected since the start: counts by status and "timeout". */
  const seen: Record<string, number> = {};
  const count = (what: string) => (seen[what] = (seen[what] ?? 0) + 1);
  const set = (s: FaultSetting | undefined) => {
    layers = (s === undefined ? [] : Array.isArray(s) ? s : [s]).map((f) => ({ f, left: f.count }));
  };
  set(initial);

  function decideBy(f: Faults, random: () => number): FaultAction {
    const latencyMs = f.latencyMs ?? 0;
    const rates: [number, number][] = Object.entries(f.errorRates ?? {}).map(([s, r]) => [Number(s), r]);
    if (f.status !== undefined || f.rate !== undefined) rates.push([f.status ?? 503, f.rate ?? 1]);
    let draw = random();
    if (f.timeoutRate && (draw -= f.timeoutRate) < 0) return { kind: 'hold', latencyMs, ms: f.timeoutMs ?? 30_000 };
    if (f.timeoutAfterWorkRate && (draw -= f.timeoutAfterWorkRate) < 0)
      return { kind: 'none', latencyMs, loseResponse: true, holdMs: f.timeoutMs ?? 30_000 };
    for (const [status, rate] of rates) {
      if ((draw -= rate) < 0) {
        const retryAfterSeconds =
          status === 429 ? (f.retryAfterSeconds ?? 1) : status === 503 ? f.retryAfterSeconds : undefined;
        const detail = f.detail ?? describe(status);
        return {
          kind: 'error',
          latencyMs,
          status,
          detail,
          ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
        };
      }
    }
    return { kind: 'none', latencyMs, loseResponse: f.loseResponses ?? false };
  }

  return {
    set,
    /** Whether some rule looks at bodies (the server then reads the body before deciding). */
    needsBody: () => layers.some((l) => l.f.bodyIncludes !== undefined),
    seen: () => ({ ...seen }),
    /** What to do with a request. */
    decide(req: FaultRequest, random: () => number = Math.random): FaultAction {
      const layer = layers.find(
        ({ f, left }) =>
          (left === undefined || left > 0) &&
          (f.only ? matches(f.only, req.target) : !req.exempt) &&
          (f.bodyIncludes === undefined || (req.body ?? '').includes(f.bodyIncludes)),
      );
      if (!layer) return NONE;
      if (layer.left !== undefined) layer.left--;
      const action = decideBy(layer.f, random);
      if (action.kind === 'error') count(String(action.status));
      else if (action.kind === 'hold') count('timeout');
      else if (action.holdMs !== undefined) count('timeout after work');
      return action;
    },
  };
}

export type FaultInjector = ReturnType<typeof faultInjector>;

const matches = (only: string, target: string) =>
  only.endsWith('*') ? target.startsWith(only.slice(0, -1)) : target === only;

/**
 * Carries out a decision: the latency, then either a held request (no status line; the connection is dropped after
 * `ms`, as a client sees a timeout) or the injected error, which `answer` sends in the simulator's format. Returns
 * true when the request has been dealt with.
 */
export async function applyFault(
  action: FaultAction,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  answer: (status: number, detail: string) => void,
): Promise<boolean> {
  if (action.latencyMs) await new Promise((r) => setTimeout(r, action.latencyMs));
  if (action.kind === 'hold') {
    setTimeout(() => req.socket.destroy(), action.ms).unref();
    return true;
  }
  if (action.kind === 'error') {
    if (action.retryAfterSeconds !== undefined) res.setHeader('retry-after', String(action.retryAfterSeconds));
    answer(action.status, action.detail);
    return true;
  }
  return false;
}

/** After the work is done: drops the connection, at once or after `holdMs` (returns true), when the answer is to be lost. */
export function loseResponse(action: FaultAction, res: http.ServerResponse): boolean {
  if (action.kind !== 'none' || !action.loseResponse) return false;
  if (action.holdMs === undefined) res.socket?.destroy();
  else setTimeout(() => res.socket?.destroy(), action.holdMs).unref();
  return true;
}
