// The signing audit trail (kept in the store; printed on the signed mandate's audit page).
import type { Queryable } from './db';
import { iso } from './rows';

export interface ClientInfo {
  ip?: string;
  userAgent?: string;
}

export async function recordAudit(
  db: Queryable,
  e: { entryId: string; jobId?: string; kind: string; client?: ClientInfo; details?: Record<string, unknown> },
) {
  await db.query(
    'INSERT INTO audit_events (entry_id, job_id, kind, ip, user_agent, details) VALUES ($1, $2, $3, $4, $5, $6)',
    [
      e.entryId,
      e.jobId ?? null,
      e.kind,
      e.client?.ip ?? null,
      e.client?.userAgent?.slice(0, 500) ?? null,
      JSON.stringify(e.details ?? {}),
    ],
  );
}

export async function auditTrail(db: Queryable, entryId: string, jobId: string) {
  const { rows } = await db.query<{
    kind: string;
    at: Date;
    ip: string | null;
    user_agent: string | null;
    details: Record<string, unknown>;
  }>('SELECT kind, at, ip, user_agent, details FROM audit_events WHERE entry_id = $1 AND job_id = $2 ORDER BY id', [
    entryId,
    jobId,
  ]);
  return rows.map((r) => ({ ...r, at: iso(r.at)! }));
}
