// What a run does about its findings, once it may (report-only runs never do): a destructive change only when two
// runs at least `agreeAfterMs` apart agree or an operator confirmed it; an address taken over only from the day
// the other platform starts. Each action closes its finding in the transaction that records its effect, so a
// retried activity does it once. A repair is only made while the mandate in force covers it (repair.ts); otherwise
// the finding stays open with the reason noted.
import type { Logger } from 'pino';
import type { Db } from '../../platform/store/db';
import { closeFinding, findingsOfRun, noteFinding, type FindingView } from '../../platform/store/drift-findings';
import {
  entryDirectoryLines,
  forgetDirectoryLine,
  releaseDirectoryLine,
} from '../../platform/store/directory-holdings';
import { recordReconciledState, currentState } from '../../platform/store/entry-states';
import { disableParticipant, findEnabledParticipant } from '../../platform/store/peppol-participants';
import { markMigrated } from '../../platform/store/peppol-migrations';
import { DESTRUCTIVE, REPAIRABLE, type DriftKind } from './findings';
import { notCovered, queueRepair } from './repair';
import type { PeppolWriter } from './ports';

export interface ActContext {
  db: Db;
  log: Logger;
  peppol: PeppolWriter;
  runId: string;
  day: string;
  agreeAfterMs: number;
  /** The participant id of a directory address (0225:<address>, normalised). */
  participantOf(address: string): string;
}

const ACTED_ON: readonly DriftKind[] = [...DESTRUCTIVE, ...REPAIRABLE];
/** At most this many findings a run acts on in one activity; the rest wait for the next night. */
const BATCH = 500;

/** Acts on the run's findings that may be acted on; returns what it did, by outcome. */
export async function actOnFindings(ctx: ActContext, beat: () => void): Promise<Record<string, number>> {
  const outcomes: Record<string, number> = {};
  const count = (o: string) => void (outcomes[o] = (outcomes[o] ?? 0) + 1);
  for (const f of await findingsOfRun(ctx.db, ctx.runId, ACTED_ON, ctx.agreeAfterMs, BATCH)) {
    beat();
    if (!f.agreed) {
      count('awaiting-agreement');
      continue;
    }
    count(await act(ctx, f));
  }
  return outcomes;
}

async function act(ctx: ActContext, f: FindingView): Promise<string> {
  const entryId = f.entry_id;
  if (!entryId) return 'reported';
  switch (f.kind as DriftKind) {
    case 'moved-out':
      if (String(f.details.day) > ctx.day) return 'waiting-for-day';
      return leave(ctx, f, entryId, 'moved-out', { platform: f.details.platform, day: f.details.day });
    case 'ceased':
      return leave(ctx, f, entryId, 'ceased', { day: f.details.day });
    case 'participant-migrated':
      await ctx.db.tx(async (q) => {
        if (!(await closeFinding(q, f.id, 'acted', `now at ${String(f.details.smp)}: our record disabled`))) return;
        await disableParticipant(q, f.subject, entryId);
        await markMigrated(q, f.subject);
      });
      return 'migrated';
    case 'participant-missing': {
      if ((await currentState(ctx.db, entryId)) !== 'registered') {
        await noteFinding(ctx.db, f.id, 'not put back: the party is no longer registered');
        return 'reported';
      }
      await ctx.peppol.createAtSml(f.subject);
      await closeFinding(ctx.db, f.id, 'acted', 'registered at the SML again');
      return 'repaired';
    }
    case 'line-missing':
    case 'line-changed': {
      const at = { workspaceId: f.workspace_id!, entryId, address: f.subject };
      const why = await notCovered(ctx.db, at);
      if (why) {
        await noteFinding(ctx.db, f.id, `not repaired: ${why}`);
        return 'reported';
      }
      const queued = await queueRepair(ctx.db, { ...at, findingId: f.id });
      if (queued === 'busy') {
        await noteFinding(ctx.db, f.id, 'not repaired yet: another job of the party is running');
        return 'busy';
      }
      const job = queued === 'queued-before' ? 'before' : `as job ${queued.jobId}`;
      await closeFinding(ctx.db, f.id, 'acted', `the address update putting the line back was queued ${job}`);
      return 'repair-queued';
    }
    default:
      return 'reported';
  }
}

/**
 * The address is no longer ours: its participant leaves Peppol (the Directory, then the SML, then our record), our
 * record of the line goes, and once the party holds no line its state says why.
 */
async function leave(
  ctx: ActContext,
  f: FindingView,
  entryId: string,
  state: 'moved-out' | 'ceased',
  why: Record<string, unknown>,
): Promise<string> {
  const address = f.subject;
  const participantId = ctx.participantOf(address);
  const record = await findEnabledParticipant(ctx.db, participantId);
  if (record && record.entryId === entryId) {
    if (record.directoryRegistered) await ctx.peppol.removeFromDirectory(participantId);
    if (record.smlRegistered) await ctx.peppol.deleteFromSml(participantId);
  }
  await ctx.db.tx(async (q) => {
    if (!(await closeFinding(q, f.id, 'acted', `${state}: off Peppol, our line forgotten`))) return;
    if (record && record.entryId === entryId) await disableParticipant(q, participantId, entryId);
    await forgetDirectoryLine(q, entryId, address);
    if (/^\d{9}$/.test(address)) await releaseDirectoryLine(q, address, entryId);
    if ((await entryDirectoryLines(q, entryId)).length === 0)
      await recordReconciledState(q, { entryId, state, why: { [state]: why } });
  });
  ctx.log.info({ entryId, findingId: f.id, state }, 'reconciliation: an address left Peppol');
  return state;
}
