// An operator confirms findings ahead of a second run (one, the listed ones, or every open one of a kind): the next
// run acts on them. Each confirmation is in the operators' access log with the finding, in the same transaction.
import type { Db } from '../../platform/store/db';
import { confirmFindings, type FindingView } from '../../platform/store/drift-findings';
import { recordAccess } from '../../platform/store/operator-access-log';

export async function confirmDrift(
  db: Db,
  operatorId: string,
  which: { ids?: string[]; kind?: string },
): Promise<FindingView[]> {
  return db.tx(async (q) => {
    const confirmed = await confirmFindings(q, which, operatorId);
    for (const f of confirmed)
      await recordAccess(q, {
        operatorId,
        action: 'drift-confirmed',
        ...(f.entry_id && { entryId: f.entry_id }),
        detail: { finding_id: f.id, kind: f.kind, subject: f.subject },
      });
    return confirmed;
  });
}
