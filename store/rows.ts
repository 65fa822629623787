// Helpers to turn database rows into API-shaped values.
export const iso = (d: Date | string | null | undefined): string | undefined =>
  d == null ? undefined : new Date(d).toISOString();

/** Opaque pagination cursor over a row's insertion sequence number. */
export const encodeCursor = (seq: string | number): string => Buffer.from(`s${seq}`).toString('base64url');

export function decodeCursor(cursor: string): string | undefined {
  const m = /^s(\d{1,18})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return m?.[1];
}

/** True when a PostgreSQL error is a unique violation (SQLSTATE 23505). */
export const isUniqueViolation = (err: unknown): boolean => (err as { code?: string })?.code === '23505';
