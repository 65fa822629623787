// The use case the job's rescue runs after a directory step failed (workflows/job/rescue.ts): a handover it cut
// short (the 9998 line ended, ours never created, its retries spent) must not leave the SIREN without a line, so
// its uncovered days go back to the fictive platform.
import { entrySiren } from '../party/entry-siren';
import { directoryWork, type DirectoryContext } from './carry-out';

export async function coverSiren(
  ctx: DirectoryContext,
  ids: { jobId: string; workspaceId: string; entryId: string },
): Promise<{ restored: number }> {
  const siren = await entrySiren(ctx.db, ids);
  return { restored: await directoryWork(ctx).coverGaps(siren, { jobId: ids.jobId, entryId: ids.entryId, siren }) };
}
