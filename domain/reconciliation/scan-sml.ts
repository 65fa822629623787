// The Peppol half of a run: our SMP's participants as the SML lists them, against the ones we publish there; a
// participant of ours the List did not show is looked up in the SML's DNS (findings.ts judgeParticipant).
import { addProgress, markParticipantsSeen, unseenParticipants } from '../../platform/store/reconciliation-runs';
import { judgeParticipant } from './findings';
import type { ReconciliationSettings, SmlReader } from './ports';
import { found, type ScanContext } from './scan-directory';

export type SmlScanContext = Pick<ScanContext, 'db' | 'log' | 'runId'> & {
  sml: SmlReader;
  settings: ReconciliationSettings;
};

/** Reads up to `pages` List pages from `next`; returns the next page's identifier (none at the end) and how many. */
export async function scanSmlPages(ctx: SmlScanContext, next: string | undefined, pages: number, beat: () => void) {
  let at = next;
  let read = 0;
  for (let i = 0; i < pages; i++) {
    const page = await ctx.sml.listPage(at);
    const unknown = await markParticipantsSeen(ctx.db, ctx.runId, page.participants);
    for (const subject of unknown) await found(ctx, { kind: 'participant-unknown', subject, details: {} });
    await addProgress(ctx.db, ctx.runId, { participants: page.participants.length, requests: { sml: 1 } });
    read += page.participants.length;
    beat();
    at = page.next;
    if (!at) return { read };
  }
  return { next: at, read };
}

/** Looks up up to `limit` of our participants the List did not show, after `after`; returns the last one done. */
export async function scanUnseenParticipants(ctx: SmlScanContext, after: string, limit: number, beat: () => void) {
  const unseen = await unseenParticipants(ctx.db, ctx.runId, after, limit);
  for (const p of unseen) {
    const smpUrls = await ctx.sml.smpUrls(p.participantId);
    const finding = judgeParticipant({ ...p, smpUrls, ourSmpUrl: ctx.settings.ourSmpUrl });
    if (finding) await found(ctx, finding);
    beat();
  }
  await addProgress(ctx.db, ctx.runId, { requests: { dns: unseen.length } });
  return unseen.length < limit ? undefined : unseen.at(-1)!.participantId;
}
