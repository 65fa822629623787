// An entry of the caller's workspace, or 404: another workspace's ids are not found either.
import type { Db } from '../../platform/store/db';
import { getEntryRow } from '../../platform/store/entries';
import { notFound } from '../../web/http/problem';

export async function ownEntry(db: Db, workspaceId: string, id: string) {
  const row = await getEntryRow(db, workspaceId, id);
  if (!row) throw notFound(`entry ${id}`);
  return row;
}
