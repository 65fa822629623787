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
  return segments.join('/');
}
