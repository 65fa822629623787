// What operators did and saw, for the platform's audit: who, what, when, on which entry.
import type { Queryable } from './db';
import { decodeCursor, encodeCursor, iso } from './rows';

export const ACCESS_ACTIONS = [
  'decision',
  'submission-viewed',
  'identity-image-viewed',
  'mandate-viewed',
  'operator-created',
  'credential-created',
  'credential-revoked',
  'drift-confirmed',
] as const;
export type AccessAction = (typeof ACCESS_ACTIONS)[number];

export interface AccessRecord {
  /** Null: the command line, run by whoever holds the platform's shell; for a decision, the decision policy's rule. */
  operatorId: string | null;
  action: AccessAction;
  entryId?: string;
  jobId?: string;
  /** What was seen or decided (an image's view, a decision and its reason, the credential created). */
  detail?: Record<string, unknown>;
}

export async function recordAccess(db: Queryable, r: AccessRecord): Promise<void> {
  await db.query(
    'INSERT INTO operator_access_log (operator_id, action, entry_id, job_id, detail) VALUES ($1, $2, $3, $4, $5)',
    [r.operatorId, r.action, r.entryId ?? null, r.jobId ?? null, JSON.stringify(r.detail ?? {})],
  );
}

export interface AccessLine {
  at: string;
  operator_id: string | null;
  operator_name: string;
  action: AccessAction;
  entry_id: string | null;
  job_id: string | null;
  detail: Record<string, unknown>;
}

/** The log, oldest first, filtered by operator and entry, a page after `cursor`; `limit` bounds the page. */
export async function accessLog(
  db: Queryable,
  filter: {
    operatorId?: string;
    entryId?: string;
    action?: AccessAction;
    /** Decisions only: an operator's, or the decision policy's. */
    decidedBy?: 'operator' | 'policy';
    from?: string;
    to?: string;
  },
  page: { cursor?: string; limit: number },
): Promise<{ list: AccessLine[]; next?: string }> {
  const after = page.cursor ? decodeCursor(page.cursor) : '0';
  const { rows } = await db.query<Omit<AccessLine, 'at'> & { at: Date; id: string }>(
    `SELECT l.id, l.at, l.operator_id, COALESCE(o.name, CASE WHEN l.action = 'decision' THEN 'decision policy' ELSE 'command line' END) AS operator_name, l.action, l.entry_id, l.job_id, l.detail
     FROM operator_access_log l LEFT JOIN operators o ON o.id = l.operator_id
     WHERE l.id > $1 AND ($2::uuid IS NULL OR l.operator_id = $2) AND ($3::uuid IS NULL OR l.entry_id = $3)
       AND ($4::timestamptz IS NULL OR l.at >= $4) AND ($5::timestamptz IS NULL OR l.at < $5)
       AND ($7::text IS NULL OR l.action = $7)
       AND ($8::text IS NULL OR (l.action = 'decision' AND (l.operator_id IS NULL) = ($8 = 'policy')))
     ORDER BY l.id LIMIT $6`,
    [
      after ?? '0',
      filter.operatorId ?? null,
      filter.entryId ?? null,
      filter.from ?? null,
      filter.to ?? null,
      page.limit + 1,
      filter.action ?? null,
      filter.decidedBy ?? null,
    ],
  );
  const more = rows.length > page.limit;
  const list = rows.slice(0, page.limit).map(({ id: _, ...r }) => ({ ...r, at: iso(r.at)! }));
  return { list, ...(more && { next: encodeCursor(rows[page.limit - 1]!.id) }) };
}
