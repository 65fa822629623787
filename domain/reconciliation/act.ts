// What a run does about its findings, once it may (report-only runs never do): only when two sightings at least
// `agreeAfterMs` apart agree or an operator confirmed it; an address taken over or ended only from its day; never
// while another job of the party runs. Each action's last write closes its finding in the transaction that records
// its effect, and its remote calls count what is done already as done, so a retried activity does it once. A repair
// is only made while the mandate in force covers it (repair.ts). A finding not acted on stays open with the reason
// noted; one whose action a remote refuses for good is noted and the run goes on with the others.
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
import { markMigrated, preparedMigration } from '../../platform/store/peppol-migrations';
import { activeJobOf } from '../../platform/store/jobs';
import { RemoteFailure } from '../remote-failure';
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
/** Findings an activity takes at a time; the workflow calls again with the cursor. */
const BATCH = 200;

/**
 * Acts on up to BATCH of the run's findings after `after` (id order); returns what it did, by outcome, and the
 * cursor of the next batch (none at the end).
 */
export async function actOnFindings(
  ctx: ActContext,
  after: string,
  beat: () => void,
): Promise<{ outcomes: Record<string, number>; next?: string }> {
  const outcomes: Record<string, number> = {};
  const count = (o: string) => void (outcomes[o] = (outcomes[o] ?? 0) + 1);
  const batch = await findingsOfRun(ctx.db, ctx.runId, {
    kinds: ACTED_ON,
    agreeAfterMs: ctx.agreeAfterMs,
    after,
    limit: BATCH,
  });
  for (const f of batch) {
    beat();
    if (!f.agreed) {
      count('awaiting-agreement');
      continue;
    }
    try {
      count(await act(ctx, f));
    } catch (err) {
      // A refusal for good would fail every night's run: it is noted on the finding instead. Anything worth
      // retrying (a remote down) fails the activity, which Temporal retries.
      if (!(err instanceof RemoteFailure) || err.retryable) throw err;
      await noteFinding(ctx.db, f.id, `not done: ${err.message}`);
      ctx.log.warn({ findingId: f.id, kind: f.kind, err }, 'reconciliation: an action was refused');
      count('refused');
    }
  }
  return { outcomes, ...(batch.length === BATCH && { next: batch.at(-1)!.id }) };
}

async function act(ctx: ActContext, f: FindingView): Promise<string> {
  const entryId = f.entry_id;
  if (!entryId) return 'reported';
  const running = await activeJobOf(ctx.db, entryId);
  if (running) {
    await noteFinding(ctx.db, f.id, `not yet: job ${running.id} of the party is ${running.status}`);
    return 'busy';
  }
  switch (f.kind as DriftKind) {
    case 'moved-out':
      if (String(f.details.day) > ctx.day) return 'waiting-for-day';
      return leave(ctx, f, entryId, 'moved-out', { platform: f.details.platform, day: f.details.day });
    case 'ceased':
      if (String(f.details.day) > ctx.day) return 'waiting-for-day';
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
      if (queued === 'busy') return 'busy'; // a job started since the check above: the next night tries again
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
  const ours = record?.entryId === entryId;
  // A migration we prepared is the company's way out on Peppol: its new SMP takes the participant over, which the
  // participant-migrated finding then settles. Deleting it would cancel that migration.
  const migrating = ours && (await preparedMigration(ctx.db, participantId)) !== undefined;
  if (ours && !migrating) {
    if (record.directoryRegistered) await ctx.peppol.removeFromDirectory(participantId);
    if (record.smlRegistered) await ctx.peppol.deleteFromSml(participantId);
  }
  await ctx.db.tx(async (q) => {
    if (!(await closeFinding(q, f.id, 'acted', `${state}: off Peppol, our line forgotten`))) return;
    if (ours && !migrating) await disableParticipant(q, participantId, entryId);
    await forgetDirectoryLine(q, entryId, address);
    if ((await entryDirectoryLines(q, entryId)).length > 0) return;
    await releaseDirectoryLine(q, f.subject.slice(0, 9), entryId);
    await recordReconciledState(q, { entryId, state, why: { [state]: why } });
  });
  ctx.log.info({ entryId, findingId: f.id, state }, 'reconciliation: an address left Peppol');
  return state;
}
