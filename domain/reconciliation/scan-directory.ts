// The directory half of a run: our matricule's lines, page by page, against our records; then the lines of ours no
// page showed. What ended or vanished is explained by the SIREN's lines and state (findings.ts judgeAddress).
import type { Logger } from 'pino';
import type { Db } from '../../platform/store/db';
import { recordDriftEvent, recordFinding } from '../../platform/store/drift-findings';
import {
  addProgress,
  markLinesSeen,
  recordedLines,
  unseenLines,
  type RecordedLineRow,
} from '../../platform/store/reconciliation-runs';
import type { AnnuaireLine } from '../directory/annuaire';
import { judgeAddress, judgePage, type Finding } from './findings';
import type { DirectoryReader, ReconciliationSettings } from './ports';

export const PAGE = 100;
/** How long an activity reads pages before handing its cursor back (its start-to-close timeout is 10 minutes). */
const BUDGET_MS = 3 * 60_000;

export interface ScanContext {
  db: Db;
  log: Logger;
  directory: DirectoryReader;
  settings: ReconciliationSettings;
  runId: string;
  /** The directory day the run compares on, and the earliest day its searches reach. */
  day: string;
  from: string;
  /** Lines written after this may not show yet (changes show the next day): pending, not missing. */
  pendingSince: Date | undefined;
}

/** Records a finding, and tells the party's workspace the first time (event `party.drift_found`). */
export async function found(ctx: Pick<ScanContext, 'db' | 'runId'>, f: Finding): Promise<void> {
  await ctx.db.tx(async (q) => {
    const fresh = await recordFinding(q, ctx.runId, f);
    if (fresh && f.entryId)
      await recordDriftEvent(q, {
        entryId: f.entryId,
        data: { drift: f.kind, subject: f.subject, details: f.details },
      });
  });
}

/**
 * Reads up to `pages` pages from `offset`; returns where the next call starts, or undefined at the end. The next
 * page is asked for while this one is judged, so that the Annuaire's quota, not our own work, sets the pace.
 */
export async function scanDirectoryPages(ctx: ScanContext, offset: number, pages: number, beat: () => void) {
  const fetchPage = (at: number) => {
    const page = ctx.directory.matriculePage({
      matricule: ctx.settings.matricule,
      from: ctx.from,
      offset: at,
      limit: PAGE,
    });
    page.catch(() => {}); // awaited below; a page asked for ahead and then not needed must not go unhandled
    return page;
  };
  let at = offset;
  let next = fetchPage(at);
  const deadline = Date.now() + BUDGET_MS;
  for (let i = 0; i < pages; i++) {
    const { lines, total } = await next;
    const end = lines.length === 0 || at + lines.length >= total;
    // Within the activity's budget (many ended lines mean lookups): the cursor goes back to the workflow in time.
    const last = i + 1 >= pages || Date.now() > deadline;
    if (!end && !last) next = fetchPage(at + lines.length);
    await judgeLines(ctx, lines);
    at += lines.length;
    beat();
    if (end) return { next: undefined, read: at - offset };
    if (last) break;
  }
  return { next: at, read: at - offset };
}

/** One page of our matricule's lines against our records: seen, reported, or explained. */
async function judgeLines(ctx: ScanContext, lines: AnnuaireLine[]): Promise<void> {
  let requests = 1;
  const recorded = await recordedLines(
    ctx.db,
    lines.map((l) => l.identifiantAdressage),
  );
  const verdict = judgePage(lines, recorded);
  await markLinesSeen(ctx.db, ctx.runId, verdict.seen);
  for (const f of verdict.unknown) await found(ctx, f);
  for (const { line, recorded: rec } of verdict.ended)
    requests += await explain(ctx, { ...rec, since: recorded.get(rec.address.toLowerCase())!.since }, line);
  await addProgress(ctx.db, ctx.runId, { lines: lines.length, requests: { annuaire: requests } });
}

/** Explains up to `limit` of our lines no page showed, after `after` (address order); returns the last one done. */
export async function scanUnseenLines(ctx: ScanContext, after: string, limit: number, beat: () => void) {
  const unseen = await unseenLines(ctx.db, ctx.runId, after, limit);
  let requests = 0;
  for (const rec of unseen) {
    requests += await explain(ctx, rec, undefined);
    beat();
  }
  await addProgress(ctx.db, ctx.runId, { requests: { annuaire: requests } });
  return unseen.length < limit ? undefined : unseen.at(-1)!.address;
}

/** Why one line of ours ended (`shown`) or went missing; returns the requests it took. */
async function explain(ctx: ScanContext, rec: RecordedLineRow, shown: AnnuaireLine | undefined): Promise<number> {
  const sirenLines = await ctx.directory.sirenLines(rec.siren, ctx.from);
  let requests = 1;
  const facts = {
    recorded: rec,
    shown,
    sirenLines,
    writtenSinceLastRun: ctx.pendingSince === undefined || rec.since > ctx.pendingSince,
    ourMatricule: ctx.settings.matricule,
    day: ctx.day,
  };
  let finding = judgeAddress(facts);
  if (finding && finding.kind !== 'moved-out') {
    // Only a company's end explains a line ended by nobody else: ask the directory once.
    finding = judgeAddress({ ...facts, companyState: await ctx.directory.companyState(rec.siren) });
    requests++;
  }
  if (finding) await found(ctx, finding);
  else await markLinesSeen(ctx.db, ctx.runId, [rec.address]);
  return requests;
}
