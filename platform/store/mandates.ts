// Mandates of party entries: signed, submitted, voided, superseded, and the one in force. Their numbers, and issuing
// them, are in mandate-numbers.ts; the signer's identity documents in identity-documents.ts, operators' decisions in
// approval-decisions.ts.
import type { Queryable } from './db';
import { dropIdentityDocuments } from './identity-documents';

export interface MandateRow {
  entry_id: string;
  job_id: string;
  mandate_number: string;
  issued_on: string;
  /** Whether the signed mandate is stored (its bytes: getSignedPdf). */
  signed: boolean;
  signed_via: 'drawn' | 'typed' | 'upload' | null;
  signed_at: Date | null;
  submitted_at: Date | null;
  decision_id: string | null;
  /** A first approval of its submission (four eyes), waiting for a second operator's decision. */
  first_approval_id: string | null;
  signed_former_matricule: string | null;
  upload_evidence: UploadEvidence | null;
  /** Set when its registration was cancelled: kept as evidence, no longer in force. */
  voided_at: Date | null;
  /** The number of this job's mandate last served unsigned (GET agreement), if any was. */
  served_number: string | null;
}

/** What showed an uploaded mandate was signed, as the inspection found it (domain/inspection/inspect-pdf.ts). */
export type UploadEvidence = 'digital-signature' | 'visible-signature' | 'scan';

// Without the signed mandate's bytes (tens of kilobytes): most readers only need to know it is there.
const MANDATE_COLUMNS = `entry_id, job_id, mandate_number, to_char(issued_on, 'YYYY-MM-DD') AS issued_on, signed_pdf IS NOT NULL AS signed,
  signed_via, signed_at, submitted_at, decision_id, first_approval_id, signed_former_matricule, upload_evidence, voided_at,
  served_number`;

export async function getMandate(db: Queryable, entryId: string): Promise<MandateRow | undefined> {
  const { rows } = await db.query<MandateRow>(`SELECT ${MANDATE_COLUMNS} FROM mandates WHERE entry_id = $1`, [entryId]);
  return rows[0];
}

/**
 * Records that the job's mandate `number` was served unsigned (GET agreement): the number a signature that names none
 * is held to (signInApp). Written only when it changes.
 */
export async function recordServedMandate(db: Queryable, entryId: string, jobId: string, number: string) {
  await db.query(
    `UPDATE mandates SET served_number = $3 WHERE entry_id = $1 AND job_id = $2 AND served_number IS DISTINCT FROM $3`,
    [entryId, jobId, number],
  );
}

/** The signed mandate as stored (sealed), if any. */
export async function getSignedPdf(db: Queryable, entryId: string): Promise<Uint8Array | undefined> {
  const { rows } = await db.query<{ signed_pdf: Uint8Array | null }>(
    'SELECT signed_pdf FROM mandates WHERE entry_id = $1',
    [entryId],
  );
  return rows[0]?.signed_pdf ?? undefined;
}

/** What the signed mandate consents to, beyond its text: kept with it, for the steps acting on it. */
export interface SignedTerms {
  /** The platform whose lines it consents to take over (part 5). */
  formerMatricule?: string;
  /** The invoicing addresses it entrusts (part 4), as the domain writes them. */
  invoicingAddresses?: unknown;
  /** What it says of the party (domain/party/mandate-facts.ts): a change to them asks for a new mandate. */
  facts?: Record<string, unknown>;
}

/**
 * Stores the signed mandate (sealed by the caller) with the take-over identifier its text carried (the consent).
 * False when `mandateNumber` is no longer the entry's mandate (its party changed while it was being signed).
 */
export async function storeSignedPdf(
  db: Queryable,
  entryId: string,
  mandateNumber: string,
  pdf: Uint8Array,
  via: 'drawn' | 'typed' | 'upload',
  terms: SignedTerms,
  evidence?: UploadEvidence,
): Promise<boolean> {
  const r = await db.query(
    `UPDATE mandates SET signed_pdf = $2, signed_via = $3, signed_at = now(), submitted_at = NULL, signed_former_matricule = $4,
       upload_evidence = $5, signed_invoicing_addresses = $7, signed_facts = $8, updated_at = now()
     WHERE entry_id = $1 AND submitted_at IS NULL AND mandate_number = $6 AND voided_at IS NULL`,
    [
      entryId,
      pdf,
      via,
      terms.formerMatricule ?? null,
      evidence ?? null,
      mandateNumber,
      terms.invoicingAddresses === undefined ? null : JSON.stringify(terms.invoicingAddresses),
      terms.facts === undefined ? null : JSON.stringify(terms.facts),
    ],
  );
  return r.rowCount > 0;
}

/**
 * Voids the mandate of a cancelled job (not a later job's): kept, with its signature if any, but no longer in force.
 * The signer's identity document goes (personal data of a registration that will not happen; its hash stays in the
 * audit trail).
 */
export async function voidJobMandate(q: Queryable, entryId: string, jobId: string): Promise<void> {
  const { rowCount } = await q.query(
    'UPDATE mandates SET voided_at = COALESCE(voided_at, now()), updated_at = now() WHERE entry_id = $1 AND job_id = $2',
    [entryId, jobId],
  );
  if (rowCount > 0) await dropIdentityDocuments(q, entryId);
}

/** The entry's mandate, locked until the transaction ends (a party change decides on it). */
export async function lockMandate(q: Queryable, entryId: string): Promise<MandateRow | undefined> {
  const { rows } = await q.query<MandateRow>(`SELECT ${MANDATE_COLUMNS} FROM mandates WHERE entry_id = $1 FOR UPDATE`, [
    entryId,
  ]);
  return rows[0];
}

/** Replaces the signed mandate by its final form (audit page, seal) at confirmation. */
export async function finalizeSignedPdf(db: Queryable, entryId: string, sealedPdf: Uint8Array) {
  await db.query(
    'UPDATE mandates SET signed_pdf = $2, updated_at = now() WHERE entry_id = $1 AND submitted_at IS NULL',
    [entryId, sealedPdf],
  );
}

/** False when the submission was marked already (two confirmations at once: one marks it). */
export async function markSubmitted(db: Queryable, entryId: string): Promise<boolean> {
  const r = await db.query(
    'UPDATE mandates SET submitted_at = now(), updated_at = now() WHERE entry_id = $1 AND submitted_at IS NULL',
    [entryId],
  );
  return r.rowCount > 0;
}

/** A rejection asks for a new submission: the previous signature no longer counts. */
export async function reopenMandate(db: Queryable, entryId: string) {
  await db.query(
    `UPDATE mandates SET submitted_at = NULL, signed_pdf = NULL, signed_via = NULL, signed_at = NULL, decision_id = NULL,
       first_approval_id = NULL,
       signed_former_matricule = NULL, signed_invoicing_addresses = NULL, signed_facts = NULL, upload_evidence = NULL, updated_at = now()
     WHERE entry_id = $1`,
    [entryId],
  );
}

/**
 * The entry's mandate in force, as the directory and Peppol steps need it: the latest signed, submitted and approved
 * one not voided. A new mandate (an address update beyond the signed scope) is in force once approved; until then,
 * and if it never is, the one it supersedes stays. Those steps act on a company's behalf, so no definition can
 * reach them without its consent.
 */
export async function approvedMandate(db: Queryable, entryId: string): Promise<ApprovedMandate | undefined> {
  const { rows } = await db.query<{ m: ApprovedMandateJson | null }>(
    `SELECT (${approvedMandateJson('$1::uuid')}) AS m`,
    [entryId],
  );
  return approvedMandateOf(rows[0]?.m);
}

export type ApprovedMandate = { number: string } & SignedTerms;

/** What approvedMandateJson gives: the mandate's number and the terms signed with it. */
export interface ApprovedMandateJson {
  number: string;
  formerMatricule: string | null;
  invoicingAddresses: unknown;
  facts: Record<string, unknown> | null;
}

/** SQL: the approved mandate in force of the entry `entry` (an SQL uuid), as JSON (ApprovedMandateJson), or NULL. */
export const approvedMandateJson = (entry: string) =>
  `SELECT json_build_object('number', a.mandate_number, 'formerMatricule', a.signed_former_matricule,
       'invoicingAddresses', a.signed_invoicing_addresses, 'facts', a.signed_facts)
     FROM (SELECT mandate_number, signed_former_matricule, signed_invoicing_addresses, signed_facts, decision_id, signed_pdf IS NOT NULL AS signed,
             submitted_at, voided_at FROM mandates WHERE entry_id = ${entry}
           UNION ALL
           SELECT mandate_number, signed_former_matricule, signed_invoicing_addresses, signed_facts, decision_id, signed_pdf IS NOT NULL,
             submitted_at, voided_at FROM superseded_mandates WHERE entry_id = ${entry}) a
     JOIN approval_decisions d ON d.id = a.decision_id
     WHERE a.signed AND a.submitted_at IS NOT NULL AND d.approved AND a.voided_at IS NULL
     ORDER BY d.created_at DESC LIMIT 1`;

/** The mandate approvedMandateJson read, as the steps use it. */
export function approvedMandateOf(m: ApprovedMandateJson | null | undefined): ApprovedMandate | undefined {
  if (!m) return undefined;
  return {
    number: m.number,
    ...(m.formerMatricule && { formerMatricule: m.formerMatricule }),
    ...(m.invoicingAddresses != null && { invoicingAddresses: m.invoicingAddresses }),
    ...(m.facts != null && { facts: m.facts }),
  };
}

/** The scope the entry's current mandate was signed for, once signed (`undefined` before, or for older mandates). */
export async function signedInvoicingAddresses(q: Queryable, entryId: string): Promise<unknown> {
  const { rows } = await q.query<{ s: unknown }>(
    'SELECT signed_invoicing_addresses AS s FROM mandates WHERE entry_id = $1 AND signed_pdf IS NOT NULL',
    [entryId],
  );
  return rows[0]?.s ?? undefined;
}

/** The approved mandate `mandateNumber` superseded (an address update's new mandate replaces the one in force). */
export async function supersededByMandate(
  q: Queryable,
  mandateNumber: string,
): Promise<
  { mandateNumber: string; invoicingAddresses: unknown; facts: Record<string, unknown> | undefined } | undefined
> {
  const { rows } = await q.query<{
    mandate_number: string;
    signed_invoicing_addresses: unknown;
    signed_facts: Record<string, unknown> | null;
  }>(
    `SELECT s.mandate_number, s.signed_invoicing_addresses, s.signed_facts FROM superseded_mandates s
     JOIN approval_decisions d ON d.id = s.decision_id
     WHERE s.superseded_by = $1 AND d.approved AND s.voided_at IS NULL`,
    [mandateNumber],
  );
  const r = rows[0];
  return (
    r && {
      mandateNumber: r.mandate_number,
      invoicingAddresses: r.signed_invoicing_addresses ?? undefined,
      facts: r.signed_facts ?? undefined,
    }
  );
}

const KEPT_COLUMNS = `mandate_number, entry_id, job_id, issued_on, signed_pdf, signed_via, signed_at, submitted_at, decision_id,
  signed_former_matricule, signed_invoicing_addresses, signed_facts, upload_evidence, voided_at`;

/**
 * A cancelled job's new mandate (an address update's, voided first) gives its place back to the approved one it
 * superseded, which was in force all along: the entry's mandate is that one again, and the voided one is kept
 * beside the others. Nothing when the job's mandate superseded no approved one.
 */
export async function restoreSupersededMandate(q: Queryable, entryId: string, jobId: string): Promise<boolean> {
  const { rows } = await q.query<{ n: string }>(
    `WITH renewal AS (
       SELECT ${KEPT_COLUMNS} FROM mandates WHERE entry_id = $1 AND job_id = $2 AND voided_at IS NOT NULL
     ), previous AS (
       SELECT s.* FROM superseded_mandates s JOIN renewal r ON s.superseded_by = r.mandate_number
       JOIN approval_decisions d ON d.id = s.decision_id WHERE d.approved AND s.voided_at IS NULL
     ), kept AS (
       INSERT INTO superseded_mandates (${KEPT_COLUMNS}, superseded_by)
       SELECT r.*, p.mandate_number FROM renewal r, previous p ON CONFLICT (mandate_number) DO NOTHING
     ), restored AS (
       UPDATE mandates a SET job_id = p.job_id, mandate_number = p.mandate_number, issued_on = p.issued_on,
         signed_pdf = p.signed_pdf, signed_via = p.signed_via, signed_at = p.signed_at, submitted_at = p.submitted_at,
         decision_id = p.decision_id, first_approval_id = NULL, signed_former_matricule = p.signed_former_matricule,
         signed_invoicing_addresses = p.signed_invoicing_addresses, signed_facts = p.signed_facts,
         upload_evidence = p.upload_evidence, voided_at = NULL, updated_at = now()
       FROM previous p WHERE a.entry_id = $1 AND a.job_id = $2
       RETURNING a.mandate_number
     ), unkept AS (
       DELETE FROM superseded_mandates s USING previous p WHERE s.mandate_number = p.mandate_number
     )
     SELECT count(*) AS n FROM restored`,
    [entryId, jobId],
  );
  return Number(rows[0]?.n) > 0;
}
