// Structured JSON logs. Carry ids (workspace, entry, job), never personal data.
import { pino, type Logger } from 'pino';

const FLUSH_EVERY_MS = 1000;
const BUFFER_BYTES = 4096;

/**
 * To stdout in writes of about 4 KB, at least once a second, and at once from `warn` up: a write per line costs
 * a request or a step more CPU than the rest of its logging (BENCHMARKS.md). Pending lines are written on exit;
 * a process killed outright loses at most its last second of info lines.
 */
export function createLogger(level: string, name = 'pa'): Logger {
  const stdout = pino.destination({ dest: 1, sync: false, minLength: BUFFER_BYTES });
  setInterval(() => stdout.flush(), FLUSH_EVERY_MS).unref();
  return pino(
    {
      name,
      level,
      base: { service: name },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: { err: safeError },
      hooks: {
        logMethod(args, write, levelValue) {
          write.apply(this, args);
          if (levelValue >= pino.levels.values.warn!) stdout.flush();
        },
      },
    },
    stdout,
  );
}

/**
 * Errors are logged by name, code, message and stack only: driver errors carry the query parameters and the
 * offending data (`params`, `detail`, `where`), which may be personal data.
 */
export function safeError(err: unknown) {
  if (!(err instanceof Error)) return { message: String(err) };
  const { code } = err as { code?: unknown };
  return { type: err.name, ...(typeof code === 'string' && { code }), message: err.message, stack: err.stack };
}

const MAX_DECODES = 3;
/** A path segment as routing might read it: percent-decoded (nested encodings too), lower case, no leading slashes. */
function routedName(segment: string): string {
  let s = segment;
  for (let i = 0; i < MAX_DECODES && s.includes('%'); i++) {
    try {
      s = decodeURIComponent(s);
    } catch {
      break; // broken encoding: what has been decoded so far
    }
  }
  return s.replace(/^[/\\]+/, '').toLowerCase();
}

/**
 * A request path fit for logs: the wizard's ref (a credential) replaced by `:ref`. Routing ignores case and the
 * path may be percent-encoded (`/REG/<ref>`, `/%72eg/<ref>`), so segments are compared decoded and case-folded,
 * not with a case-sensitive pattern; every segment following a `reg` one is redacted, wherever it stands
 * (but `assets`, the wizard's static files).
 */
const REF_LIKE = /^[A-Za-z0-9_=-]{20,}$/;

export function redactPath(path: string): string {
  const segments = path.split('/');
  let redactNext = false;
  let inWizard = false;
  for (let i = 0; i < segments.length; i++) {
    if (segments[i] === '') continue;
    if (redactNext) {
      if (routedName(segments[i]!) !== 'assets') segments[i] = ':ref'; // the wizard's static files, not a ref
      redactNext = false;
      continue;
    }
    const name = routedName(segments[i]!);
    // Further down a wizard path (`/reg/<ref>/../<ref>/start`), anything as long as a ref is one: route names are short.
    if (inWizard && REF_LIKE.test(name)) {
      segments[i] = ':ref';
      continue;
    }
    if (name === 'reg') redactNext = inWizard = true;
    // An encoded slash (`reg%2F<ref>`) keeps the ref inside this segment.
    else if (/^reg[/\\]/.test(name)) segments[i] = 'reg/:ref';
  }
  return redactRefParameters(segments);
}

/** A path parameter that holds a ref (`:ref`, `:approval_ref`…): a credential, or a value the caller chose. */
const REF_PARAMETER = /ref/i;

interface RefRoute {
  /** The route's segments: a literal (lower case) or, for a parameter, null. */
  literals: (string | null)[];
  /** The parameters named like a ref: their index in the route, and their name. */
  refs: { at: number; name: string }[];
}
const refRoutes = new Map<string, RefRoute>();

/**
 * Makes redactPath replace, in every path of these routes (Express-style patterns, `/silo/v1/entries/meta/:key/:ref`),
 * the parameters named like a ref by their name (`:ref`); api/observability.ts gives it every operation of the API,
 * so a new route with a ref is covered without more. A path is compared as routing might read it (segments decoded,
 * in any case, empty ones skipped), wherever the route stands in it; after the ref, a segment as long as a ref is
 * redacted too (`…/<ref>/x/<ref>`, `…/<ref>/../<ref>`, which no route answers but the log would show).
 */
export function redactRefRoutes(patterns: Iterable<string>): void {
  for (const pattern of patterns) {
    const parts = pattern.split('/').filter(Boolean);
    const refs = parts.flatMap((p, at) => (p.startsWith(':') && REF_PARAMETER.test(p) ? [{ at, name: p }] : []));
    if (refs.length && !refRoutes.has(pattern))
      refRoutes.set(pattern, { literals: parts.map((p) => (p.startsWith(':') ? null : p.toLowerCase())), refs });
  }
}

function redactRefParameters(segments: string[]): string {
  if (!refRoutes.size) return segments.join('/');
  // The path as routing might read it: decoded parts (an encoded slash, `approval-link%2F<ref>`, splits a segment),
  // each with the segment it comes from.
  const parts = segments.flatMap((s, seg) =>
    s === ''
      ? []
      : routedName(s)
          .split(/[/\\]+/)
          .filter(Boolean)
          .map((name) => ({ seg, name, redacted: '' })),
  );
  // After the first ref matched, anything as long as a ref is redacted too: found once, from the earliest such ref
  // (a long path of repeated routes costs one pass, not one per match).
  let tailFrom = Infinity;
  for (const { literals, refs } of refRoutes.values()) {
    // Wherever the route stands (`/x/../silo/v1/…`: no route answers it, but the log would show it).
    for (let start = 0; start + literals.length <= parts.length; start++) {
      if (!literals.every((literal, k) => literal === null || literal === parts[start + k]!.name)) continue;
      for (const ref of refs) parts[start + ref.at]!.redacted = ref.name;
      tailFrom = Math.min(tailFrom, start + refs[0]!.at + 1);
    }
  }
  if (tailFrom === Infinity) return segments.join('/');
  for (let k = tailFrom; k < parts.length; k++) if (REF_LIKE.test(parts[k]!.name)) parts[k]!.redacted ||= ':ref';
  const bySegment = new Map<number, typeof parts>();
  for (const part of parts) {
    const of = bySegment.get(part.seg);
    if (of) of.push(part);
    else bySegment.set(part.seg, [part]);
  }
  for (const [seg, of] of bySegment) {
    if (!of.some((p) => p.redacted)) continue;
    segments[seg] = of.length === 1 ? of[0]!.redacted : of.map((p) => p.redacted || p.name).join('/');
  }
  return segments.join('/');
}
