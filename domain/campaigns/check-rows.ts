// The dry run, a batch of rows at a time: each row's SIREN is claimed for the campaign (a SIREN in another open
// campaign, or twice in the file, is a duplicate), then looked up as its registration will find it — our store
// first (registered here, or a registration under way: no request sent), then the Annuaire (the SIREN's lines; its
// state only when no line is in force) and the SML's DNS (each address's participant) — and judged (verdict.ts).
// Nothing is written anywhere but our store. A retried batch judges only the rows still unjudged.
import type { Queryable } from '../../platform/store/db';
import { campaignById } from '../../platform/store/campaigns';
import {
  claimSirens,
  holdingWorkspaces,
  recordVerdicts,
  rowsToCheck,
  runningRegistrations,
  type RowVerdict,
} from '../../platform/store/campaign-checks';
import { addDays, today as dayOf, type Line } from '../directory/lines';
import type { CampaignRow } from './row';
import { judgeRow, rowAddresses, type JudgedRow, type Judgement, type RowLookups } from './verdict';

/** What the dry run reads of the outside world, each call one request (paced by the caller). */
export interface CheckPorts {
  /** The SIREN's lines in force or to come from `from` on, masked ones left out. */
  sirenLines(siren: string, from: string): Promise<Line[]>;
  /** A: active, C: ceased; null when the Annuaire does not know the SIREN. */
  companyState(siren: string): Promise<'A' | 'C' | null>;
  /** The SMP URLs the SML's DNS gives for the 0225 participant of a directory address. */
  smpUrls(address: string): Promise<string[]>;
}

export interface CheckContext {
  db: Queryable;
  ports: CheckPorts;
  /** Our matricule, and our SMP's public URL. */
  us: string;
  ourSmpUrl: string;
  /** Rows looked up at once: enough to keep the paced requests flowing while answers come back. */
  concurrency: number;
  now?: () => Date;
}

export interface BatchOutcome {
  /** The line the next batch starts after; absent when no row is left to judge. */
  next?: number;
  checked: number;
}

/** What our store knows of a row's SIREN, and where the requests sent for it are counted. */
export interface KnownHere {
  workspaceId: string;
  /** The workspace of the entry holding the SIREN's lines on this platform. */
  holderWorkspace?: string;
  /** A registration of the SIREN under way in the workspace. */
  runningJob?: string;
  requests: { annuaire: number; dns: number };
  day: string;
}

/** One row looked up as its registration will find it, and judged; no request when our store decides already. */
export async function lookUpAndJudge(ctx: CheckContext, row: JudgedRow, known: KnownHere): Promise<Judgement> {
  const { day, requests } = known;
  const lookups: RowLookups = {
    lines: [],
    participants: [],
    ...(known.holderWorkspace && { heldHere: { sameWorkspace: known.holderWorkspace === known.workspaceId } }),
    ...(known.runningJob && { runningJob: known.runningJob }),
  };
  if (!known.holderWorkspace && !known.runningJob) {
    const { addresses } = rowAddresses(row, day);
    requests.annuaire++;
    requests.dns += addresses.length;
    const [lines, participants] = await Promise.all([
      ctx.ports.sirenLines(row.siren, addDays(day, -1)),
      Promise.all(addresses.map(async (a) => ({ id: `0225:${a.id}`, smpUrls: await ctx.ports.smpUrls(a.id) }))),
    ]);
    lookups.lines = lines;
    lookups.participants = participants;
    if (!lines.some((l) => l.start <= day && (l.end === null || l.end > day))) {
      requests.annuaire++;
      lookups.companyState = await ctx.ports.companyState(row.siren);
    }
  }
  return judgeRow({ us: ctx.us, today: day, ourSmpUrl: ctx.ourSmpUrl, row, lookups });
}

/** A judgement as a row keeps it: the verdict, why, and what the registration will need. */
export function verdictOf(j: Judgement): Omit<RowVerdict, 'line'> {
  const details = {
    ...(j.formerPlatform && { former_platform: j.formerPlatform }),
    ...(j.migrations && { migrations: j.migrations }),
  };
  return { verdict: j.verdict, reasons: j.reasons, ...(Object.keys(details).length > 0 && { details }) };
}

export async function checkCampaignRows(
  ctx: CheckContext,
  campaignId: string,
  afterLine: number,
  limit: number,
): Promise<BatchOutcome> {
  const campaign = await campaignById(ctx.db, campaignId);
  if (!campaign || campaign.status !== 'checking') return { checked: 0 };
  const rows = await rowsToCheck(ctx.db, campaignId, afterLine, limit);
  if (rows.length === 0) return { checked: 0 };
  const sirens = rows.map((r) => r.siren);
  const [claims, holders, running] = await Promise.all([
    claimSirens(ctx.db, campaignId, rows),
    holdingWorkspaces(ctx.db, sirens),
    runningRegistrations(ctx.db, campaign.workspace_id, sirens),
  ]);
  const day = dayOf(ctx.now?.() ?? new Date());
  const requests = { annuaire: 0, dns: 0 };
  const judge = async (r: { line: number; siren: string; data: unknown }): Promise<RowVerdict> => {
    const claim = claims.get(r.line)!;
    if (claim.campaignId !== campaignId || claim.line !== r.line)
      return {
        line: r.line,
        verdict: 'duplicate',
        reasons: [
          claim.campaignId === campaignId
            ? `SIREN ${r.siren} is on line ${claim.line} of this file already`
            : `SIREN ${r.siren} is in another open campaign on this platform`,
        ],
      };
    const j = await lookUpAndJudge(ctx, r.data as CampaignRow, {
      workspaceId: campaign.workspace_id,
      holderWorkspace: holders.get(r.siren),
      runningJob: running.get(r.siren),
      requests,
      day,
    });
    return { line: r.line, ...verdictOf(j) };
  };
  const verdicts = await inPool(rows, ctx.concurrency, judge);
  await recordVerdicts(ctx.db, campaignId, verdicts, requests);
  return { next: rows.at(-1)!.line, checked: verdicts.length };
}

/** `fn` over `items`, at most `size` at a time, the results in the items' order. */
async function inPool<T, R>(items: T[], size: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
  return out;
}
