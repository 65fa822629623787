// Mandate numbers (SIRENcompany_SIRENofPA_YYYYMMDD_NN): issued with the entry's mandate, issued again when the
// party changes before signature, and those an entry's current mandate replaced.
import type { Queryable } from './db';
import { runEffect, type StatementEffect } from './statement-effect';
import type { MandateRow } from './mandates';

/**
 * Issues the mandate of a registration job, as a statement's effect: SIRENcompany_matriculePA_YYYYMMDD_NN, NN
 * counting the mandates issued that day for that company, the SIREN read from the entry (which must have one). The
 * same job gets the same mandate back (a retried step). A later job on the entry (a registration run again, e.g.
 * with a take-over identifier) gets a new mandate to sign: its text may differ. One statement, so a number is never
 * taken without its mandate row. Two issues for the same prefix at once collide on the number's primary key, and the
 * step's retry counts again. Its result is the mandate's number.
 */
export function issueMandateEffect(a: {
  entryId: string;
  jobId: string;
  matricule: string;
  day: string;
}): StatementEffect {
  return {
    params: [a.entryId, a.jobId, `_${a.matricule}_${a.day.replaceAll('-', '')}_`, a.day],
    requires: {
      holds: (first) => `EXISTS (SELECT 1 FROM entries WHERE id = $${first}::uuid AND siren IS NOT NULL)`,
      type: 'siren-missing',
      message: `entry ${a.entryId} has no SIREN`,
    },
    result: '(SELECT mandate_number FROM mandate_issued UNION ALL SELECT mandate_number FROM mandate_current LIMIT 1)',
    ctes(first, guard) {
      const [entry, job, suffix, day] = [0, 1, 2, 3].map((i) => `$${first + i}`);
      const prefix = '(SELECT prefix FROM mandate_prefix)';
      return `mandate_prefix AS (
       SELECT siren || ${suffix}::text AS prefix FROM entries WHERE id = ${entry}::uuid AND siren IS NOT NULL AND ${guard}
     ), mandate_current AS (
       SELECT mandate_number FROM mandates WHERE entry_id = ${entry}::uuid AND job_id = ${job}::uuid
     ), mandate_numbered AS (
       INSERT INTO mandate_numbers (number, entry_id, job_id)
       SELECT ${prefix} || CASE WHEN count(*) < 9 THEN '0' ELSE '' END || (count(*) + 1), ${entry}::uuid, ${job}::uuid
       FROM mandate_numbers WHERE ${startsWith('number', prefix)}
       HAVING EXISTS (SELECT 1 FROM mandate_prefix) AND NOT EXISTS (SELECT 1 FROM mandate_current)
       RETURNING number
     ), mandate_issued AS (
       INSERT INTO mandates (entry_id, job_id, mandate_number, issued_on) SELECT ${entry}::uuid, ${job}::uuid, number, ${day}::date FROM mandate_numbered
       ON CONFLICT (entry_id) DO UPDATE SET job_id = EXCLUDED.job_id, mandate_number = EXCLUDED.mandate_number,
         issued_on = EXCLUDED.issued_on, signed_pdf = NULL, signed_via = NULL, signed_at = NULL, submitted_at = NULL,
         decision_id = NULL, first_approval_id = NULL, signed_former_matricule = NULL, signed_invoicing_addresses = NULL, signed_facts = NULL,
         upload_evidence = NULL, voided_at = NULL,
         served_number = NULL, updated_at = now()
       RETURNING mandate_number
     ), superseded AS (
       -- The signed mandate it replaces is kept (the statement reads the row as it was before the update above).
       INSERT INTO superseded_mandates (mandate_number, entry_id, job_id, issued_on, signed_pdf, signed_via, signed_at,
         submitted_at, decision_id, signed_former_matricule, signed_invoicing_addresses, signed_facts, upload_evidence, voided_at,
         superseded_by)
       SELECT a.mandate_number, a.entry_id, a.job_id, a.issued_on, a.signed_pdf, a.signed_via, a.signed_at, a.submitted_at,
         a.decision_id, a.signed_former_matricule, a.signed_invoicing_addresses, a.signed_facts, a.upload_evidence,
         a.voided_at, n.number
       FROM mandates a, mandate_numbered n WHERE a.entry_id = ${entry}::uuid AND a.signed_pdf IS NOT NULL
       ON CONFLICT (mandate_number) DO NOTHING
     ), earlier_identity AS (
       -- A new registration's signer shows their identity document anew: an earlier job's does not count for it.
       DELETE FROM identity_documents WHERE entry_id = ${entry}::uuid AND EXISTS (SELECT 1 FROM mandate_numbered)
     )`;
    },
  };
}

/** The mandate issued on its own (see issueMandateEffect); returns its number. */
export async function issueMandate(db: Queryable, a: Parameters<typeof issueMandateEffect>[0]): Promise<string> {
  return (await runEffect(db, issueMandateEffect(a))) as string;
}

/**
 * `column` starts with the text parameter `param`, as bounds the prefix index (text_pattern_ops) answers even in a
 * prepared statement's generic plan, where `LIKE $n` cannot use it (the pattern is unknown when it is planned). The
 * numbers continue with digits, which sort before '~'.
 */
export const startsWith = (column: string, param: string) =>
  `${column} ~>=~ ${param} AND ${column} ~<~ (${param} || '~')`;

/**
 * Issues the entry's unsigned mandate again under a new number, because its party changed: the same issuer, the
 * day `day`, the next count of that day. The number it replaces stays in mandate_numbers (an upload carrying it is
 * recognised as superseded). Call with the mandate locked (lockMandate).
 */
export async function reissueMandate(q: Queryable, current: MandateRow, day: string): Promise<string> {
  const issuer = current.mandate_number.split('_').slice(0, -2).join('_'); // SIREN_issuer of SIREN_issuer_YYYYMMDD_NN
  const prefix = `${issuer}_${day.replaceAll('-', '')}_`;
  const { rows } = await q.query<{ number: string }>(
    `INSERT INTO mandate_numbers (number, entry_id, job_id)
     SELECT $1::text || CASE WHEN count(*) < 9 THEN '0' ELSE '' END || (count(*) + 1), $2::uuid, $3::uuid
     FROM mandate_numbers WHERE ${startsWith('number', '$1::text')}
     RETURNING number`,
    [prefix, current.entry_id, current.job_id],
  );
  const number = rows[0]!.number;
  await q.query(
    'UPDATE mandates SET mandate_number = $2, issued_on = $3::date, updated_at = now() WHERE entry_id = $1',
    [current.entry_id, number, day],
  );
  // A renewal's new mandate issued again still replaces the one in force (shown to the signer and the operator,
  // restored if the renewal is cancelled).
  await q.query('UPDATE superseded_mandates SET superseded_by = $2 WHERE entry_id = $1 AND superseded_by = $3', [
    current.entry_id,
    number,
    current.mandate_number,
  ]);
  return number;
}

/** The entry's mandate numbers replaced by a later one, newest first. */
export async function supersededMandates(db: Queryable, entryId: string, current: string): Promise<string[]> {
  const { rows } = await db.query<{ number: string }>(
    'SELECT number FROM mandate_numbers WHERE entry_id = $1 AND number <> $2 ORDER BY created_at DESC, number DESC LIMIT 50',
    [entryId, current],
  );
  return rows.map((r) => r.number);
}
