// What our SMP's business card is made of (integrations/peppol/smp-documents.ts): the entry's own document and the
// facts of its mandate in force, read in one statement. The Peppol Directory reads the card while the Peppol step
// waits for its answer, so each round trip here is one on every registration's path.
import type { Queryable } from './db';
import { approvedMandateJson, approvedMandateOf, type ApprovedMandateJson } from './mandates';

export interface BusinessCardSource {
  siren: string;
  /** The entry's GOBL party, as stored. */
  data: unknown;
  /** The facts its mandate in force was signed with; undefined when none was kept (mandates.ts). */
  signedFacts?: Record<string, unknown>;
}

/** Undefined when the entry is not in the workspace or has no SIREN. */
export async function businessCardSource(
  db: Queryable,
  workspaceId: string,
  entryId: string,
): Promise<BusinessCardSource | undefined> {
  const { rows } = await db.query<{ siren: string | null; data: unknown; m: ApprovedMandateJson | null }>(
    `SELECT e.siren, e.data, (${approvedMandateJson('e.id')}) AS m
       FROM entries e WHERE e.id = $1 AND e.workspace_id = $2`,
    [entryId, workspaceId],
  );
  const row = rows[0];
  if (!row?.siren) return undefined;
  const facts = approvedMandateOf(row.m)?.facts;
  return { siren: row.siren, data: row.data, ...(facts && { signedFacts: facts }) };
}
