// The operators' review queue: every workspace's submissions awaiting a decision, with the checks recorded when each
// was made (submission-checks.ts), filtered, searched, counted, and paged by keyset in one of two orders.
import type { Queryable } from './db';
import { overturnableUntil } from './approval-decisions';
import { cursorMicros, decodeTimeCursor, encodeTimeCursor, iso } from './rows';

export interface QueueFilter {
  workspaceId?: string;
  /** A purpose (registration, renewal, takeover), or `first` / `resubmission` for the round. */
  kind?: string;
  evidence?: string;
  /** Submitted before this instant (ISO). */
  submittedBefore?: string;
  /** Only those whose declared name differs from the Annuaire's. */
  nameMismatch?: boolean;
  /** Only those the Annuaire does not show active (ceased, or unknown to it). */
  notActive?: boolean;
  /**
   * Instead of those awaiting a decision: those the decision policy approved automatically whose overturn window is
   * still open (an operator may reject them until then).
   */
  automatic?: boolean;
  /** Only those whose signer the director check found (`pass`), did not find (`fail`), or could not check. */
  signerCheck?: 'pass' | 'fail' | 'unavailable';
  /** Only those with (true) or without (false) a first approval waiting for a second operator's (four eyes). */
  firstApproved?: boolean;
  /** A SIREN (or its first digits), or words of the declared name. */
  q?: string;
}

/** Oldest submission first, or the nearest approval deadline first. */
export type QueueOrder = 'oldest' | 'urgent';

/**
 * The queue's opaque cursor: the order it was made in, and the last card's key (microseconds, exact) and entry id.
 * A cursor read in the other order would skip or repeat cards: the API refuses it, naming its order.
 */
export const encodeQueueCursor = (order: QueueOrder, micros: string, id: string) =>
  `${order}.${encodeTimeCursor(micros, id)}`;

export function decodeQueueCursor(cursor: string): { order: QueueOrder; micros: string; id: string } | undefined {
  const dot = cursor.indexOf('.');
  const order = cursor.slice(0, dot);
  const at = dot > 0 ? decodeTimeCursor(cursor.slice(dot + 1)) : undefined;
  return at && (order === 'oldest' || order === 'urgent') ? { order, ...at } : undefined;
}

const PENDING = 'm.submitted_at IS NOT NULL AND m.decision_id IS NULL AND m.voided_at IS NULL';
const OVERTURNABLE = `m.submitted_at IS NOT NULL AND m.voided_at IS NULL
  AND a.policy_rule IS NOT NULL AND a.approved AND ${overturnableUntil('a')} > now()`;
const FROM = `mandates m JOIN entries e ON e.id = m.entry_id JOIN workspaces w ON w.id = e.workspace_id
  LEFT JOIN submission_checks c ON c.entry_id = m.entry_id AND c.mandate_number = m.mandate_number
  LEFT JOIN approval_decisions f ON f.id = m.first_approval_id LEFT JOIN operators fo ON fo.id = f.operator_id
  LEFT JOIN approval_decisions a ON a.id = m.decision_id`;
/** A submission without checks (made by a build before them) counts as due when submitted. */
const KEYS: Record<QueueOrder, string> = { oldest: 'm.submitted_at', urgent: 'COALESCE(c.decide_by, m.submitted_at)' };

const likeLiteral = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The filter's SQL conditions, their parameters appended to `params`. */
function conditions(f: QueueFilter, params: unknown[]): string[] {
  const where = [f.automatic ? OVERTURNABLE : PENDING];
  const p = (v: unknown) => `$${params.push(v)}`;
  if (f.workspaceId) where.push(`e.workspace_id = ${p(f.workspaceId)}::uuid`);
  if (f.kind === 'first') where.push('COALESCE(c.round, 1) = 1');
  else if (f.kind === 'resubmission') where.push('c.round > 1');
  else if (f.kind) where.push(`c.purpose = ${p(f.kind)}`);
  if (f.evidence) where.push(`c.evidence = ${p(f.evidence)}`);
  if (f.submittedBefore) where.push(`m.submitted_at < ${p(f.submittedBefore)}::timestamptz`);
  if (f.nameMismatch) where.push('c.name_matches = false');
  if (f.notActive) where.push('c.company_active = false');
  if (f.signerCheck) where.push(`c.signer_result = ${p(f.signerCheck)}`);
  if (f.firstApproved !== undefined) where.push(`m.first_approval_id IS ${f.firstApproved ? 'NOT NULL' : 'NULL'}`);
  const q = f.q?.trim();
  if (q) {
    const digits = q.replace(/\s/g, '');
    // A SIREN's first digits; else every word of the name, wherever it is and whatever stands between them
    // ("saint michel" finds "Fromagerie Saint-Michel").
    const words = q
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean)
      .slice(0, 10);
    if (/^\d{1,9}$/.test(digits)) where.push(`e.siren LIKE ${p(`${digits}%`)}`);
    else
      for (const word of words.length ? words : [q]) where.push(`e.data->>'name' ILIKE ${p(`%${likeLiteral(word)}%`)}`);
  }
  return where;
}

interface QueueRow {
  entry_id: string;
  job_id: string;
  workspace_id: string;
  workspace_name: string;
  mandate_number: string;
  submitted_at: Date;
  siren: string | null;
  name: string | null;
  upload_evidence: string | null;
  purpose: string | null;
  round: number | null;
  evidence: string | null;
  decide_by: Date | null;
  directory: unknown;
  name_matches: boolean | null;
  company_active: boolean | null;
  signer_check: unknown;
  signature: unknown;
  checked_at: Date | null;
  first_by: string | null;
  first_by_name: string | null;
  first_at: Date | null;
  auto_rule: string | null;
  auto_at: Date | null;
  auto_until: Date | null;
  auto_runs_on: Date | null;
  key_micros: string;
}

/** A page of the queue after `cursor` (from a page in the same order), with the total the filter matches. */
export async function reviewQueue(
  db: Queryable,
  filter: QueueFilter,
  page: { order: QueueOrder; limit: number; cursor?: string },
) {
  const key = KEYS[page.order];
  const params: unknown[] = [];
  const where = conditions(filter, params);
  const counted = db.query<{ total: string }>(`SELECT count(*) AS total FROM ${FROM} WHERE ${where.join(' AND ')}`, [
    ...params,
  ]);
  const after = page.cursor ? decodeQueueCursor(page.cursor) : undefined;
  if (after && after.order === page.order) {
    const [micros, id] = [params.push(after.micros), params.push(after.id)];
    where.push(
      `(${key}, m.entry_id) > ('epoch'::timestamptz + $${micros}::bigint * interval '1 microsecond', $${id}::uuid)`,
    );
  }
  params.push(page.limit + 1);
  const listed = db.query<QueueRow>(
    `SELECT m.entry_id, m.job_id, e.workspace_id, w.name AS workspace_name, m.mandate_number, m.submitted_at, e.siren,
       e.data->>'name' AS name, m.upload_evidence, c.purpose, c.round, c.evidence, c.decide_by, c.directory,
       c.name_matches, c.company_active, c.signer_check, c.signature, c.checked_at, f.operator_id AS first_by, fo.name AS first_by_name,
       f.created_at AS first_at, a.policy_rule AS auto_rule, a.created_at AS auto_at, ${overturnableUntil('a')} AS auto_until, a.hold_until AS auto_runs_on,
       ${cursorMicros(key)} AS key_micros
     FROM ${FROM} WHERE ${where.join(' AND ')}
     ORDER BY ${key}, m.entry_id LIMIT $${params.length}`,
    params,
  );
  const [{ rows: count }, { rows }] = await Promise.all([counted, listed]);
  const shown = rows.slice(0, page.limit);
  const last = shown.at(-1);
  return {
    total: Number(count[0]!.total),
    list: shown.map(view),
    ...(rows.length > page.limit &&
      last && { next_cursor: encodeQueueCursor(page.order, last.key_micros, last.entry_id) }),
  };
}

const view = (r: QueueRow) => ({
  entry_id: r.entry_id,
  job_id: r.job_id,
  workspace: { id: r.workspace_id, name: r.workspace_name },
  mandate_number: r.mandate_number,
  submitted_at: iso(r.submitted_at)!,
  siren: r.siren,
  name: r.name,
  upload_evidence: r.upload_evidence,
  checks: r.purpose
    ? {
        purpose: r.purpose,
        round: r.round!,
        evidence: r.evidence!,
        decide_by: iso(r.decide_by)!,
        directory: r.directory,
        name_matches: r.name_matches,
        company_active: r.company_active,
        signer_check: r.signer_check,
        signature: r.signature,
        checked_at: iso(r.checked_at)!,
      }
    : null,
  first_approval: r.first_at
    ? { decided_by: r.first_by ? { id: r.first_by, name: r.first_by_name! } : null, decided_at: iso(r.first_at)! }
    : null,
  automatic: r.auto_rule
    ? {
        rule: r.auto_rule,
        decided_at: iso(r.auto_at)!,
        overturnable_until: iso(r.auto_until) ?? null,
        runs_on_at: iso(r.auto_runs_on) ?? null,
      }
    : null,
});

/** How many submissions await a decision in each workspace that has any (the queue's workspace filter). */
export async function pendingByWorkspace(db: Queryable) {
  const { rows } = await db.query<{ id: string; name: string; pending: string }>(
    `SELECT w.id, w.name, count(*) AS pending FROM mandates m JOIN entries e ON e.id = m.entry_id
       JOIN workspaces w ON w.id = e.workspace_id
     WHERE ${PENDING} GROUP BY w.id, w.name ORDER BY w.name, w.id`,
  );
  return rows.map((r) => ({ id: r.id, name: r.name, pending: Number(r.pending) }));
}
