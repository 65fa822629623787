// Helpers to turn database rows into API-shaped values.
export const iso = (d: Date | string | null | undefined): string | undefined =>
  d == null ? undefined : new Date(d).toISOString();

/** Opaque pagination cursor over (created_at, id). */
export function encodeCursor(createdAt: Date | string, id: string): string {
  return Buffer.from(`${new Date(createdAt).toISOString()}|${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: string; id: string } | undefined {
  const [createdAt, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (!createdAt || !id || Number.isNaN(Date.parse(createdAt))) return undefined;
  if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
  return { createdAt, id };
}

/** True when a PostgreSQL error is a unique violation (SQLSTATE 23505). */
export const isUniqueViolation = (err: unknown): boolean => (err as { code?: string })?.code === '23505';
