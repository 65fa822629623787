// Helpers to turn database rows into API-shaped values.
export const iso = (d: Date | string | null | undefined): string | undefined =>
  d == null ? undefined : new Date(d).toISOString();

/** Opaque pagination cursor over a row's insertion sequence number. */
export const encodeCursor = (seq: string | number): string => Buffer.from(`s${seq}`).toString('base64url');

export function decodeCursor(cursor: string): string | undefined {
  const m = /^s(\d{1,18})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return m?.[1];
}

/**
 * Opaque cursor over rows ordered newest first by (a timestamp, a uuid): the last row's time in microseconds (exact,
 * unlike a JS Date) and id. `micros` comes from SQL as TIME_CURSOR_MICROS of the row's timestamp.
 */
export const encodeTimeCursor = (micros: string, id: string) => Buffer.from(`t${micros}.${id}`).toString('base64url');

export function decodeTimeCursor(cursor: string): { micros: string; id: string } | undefined {
  const m = /^t(\d{1,18})\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/.exec(
    Buffer.from(cursor, 'base64url').toString('utf8'),
  );
  return m ? { micros: m[1]!, id: m[2]! } : undefined;
}

/** SQL: a timestamp column as the microseconds a time cursor carries. */
export const cursorMicros = (column: string) => `(extract(epoch FROM ${column}) * 1000000)::bigint::text`;

/** SQL: rows after a time cursor, newest first; `micros` and `id` are parameter placeholders. */
export const afterTimeCursor = (time: string, idColumn: string, micros: string, id: string) =>
  `(${time}, ${idColumn}) < ('epoch'::timestamptz + ${micros}::bigint * interval '1 microsecond', ${id}::uuid)`;

/** True when a PostgreSQL error is a unique violation (SQLSTATE 23505). */
export const isUniqueViolation = (err: unknown): boolean => (err as { code?: string })?.code === '23505';
