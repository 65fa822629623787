// Structured JSON logs. Carry ids (workspace, entry, job), never personal data.
import { pino, type Logger } from 'pino';

export function createLogger(level: string, name = 'pa'): Logger {
  return pino({
    name,
    level,
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: { err: safeError },
  });
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
