// Structured JSON logs. Carry ids (workspace, entry, job), never personal data.
import { pino, type Logger } from 'pino';

export function createLogger(level: string, name = 'pa'): Logger {
  return pino({ name, level, base: { service: name }, timestamp: pino.stdTimeFunctions.isoTime });
}
