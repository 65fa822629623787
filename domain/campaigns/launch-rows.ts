// A started campaign registers its rows a batch at a time: each row judged `new`, `takeover` or `migrate` becomes an
// entry (its party, its invoicing addresses, the take-over consent naming the platform the Annuaire showed) and a
// registration of the built-in workflow, at a lower Temporal priority than single registrations. Ids are derived
// from the campaign and the line, so a batch tried again finds what it made before and makes nothing twice.
import { campaignRowKey, jobPriority } from '../../contract/campaigns';
import crypto from 'node:crypto';
import { ConflictError } from '../../platform/store/conflict';
import { putMeta } from '../../platform/store/entry-meta';
import { campaignById, type CampaignStatus } from '../../platform/store/campaigns';
import { recordLaunched, rowsToLaunch } from '../../platform/store/campaign-launches';
import { DomainError } from '../errors';
import { REGISTRATION_WORKFLOW_ID } from '../jobs/builtins';
import { startJob, type JobServiceDeps } from '../jobs/jobs';
import { createPartyEntry, callerMeta } from '../party/entries';
import { INVOICING_ADDRESSES_META } from '../party/invoicing-addresses';
import { FORMER_MATRICULE_META } from '../party/take-over';
import type { CampaignRow } from './row';

/** A UUID that is always the same for `name` (SHA-256, version 8: custom). */
export function stableUuid(name: string): string {
  const h = crypto.createHash('sha256').update(name).digest();
  h[6] = (h[6]! & 0x0f) | 0x80;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

export const campaignEntryId = (campaignId: string, line: number) => stableUuid(`campaign:${campaignId}:${line}:entry`);
export const campaignJobId = (campaignId: string, line: number) => stableUuid(`campaign:${campaignId}:${line}:job`);

export interface LaunchDeps extends JobServiceDeps {
  /** Our matricule. */
  us: string;
}

export interface LaunchOutcome {
  /** The campaign's status as the batch found it: anything but `running` stops the launching. */
  status: CampaignStatus | 'gone';
  next?: number;
  launched: number;
  refused: number;
}

export async function launchCampaignRows(
  deps: LaunchDeps,
  campaignId: string,
  afterLine: number,
  limit: number,
): Promise<LaunchOutcome> {
  const campaign = await campaignById(deps.db, campaignId);
  if (!campaign) return { status: 'gone', launched: 0, refused: 0 };
  if (campaign.status !== 'running') return { status: campaign.status, launched: 0, refused: 0 };
  const rows = await rowsToLaunch(deps.db, campaignId, afterLine, limit);
  const ws = campaign.workspace_id;
  const done: { line: number; entryId?: string; jobId?: string; fault?: string }[] = [];
  for (const r of rows) {
    const row = r.data as CampaignRow;
    const entryId = campaignEntryId(campaignId, r.line);
    const jobId = campaignJobId(campaignId, r.line);
    const key = campaignRowKey(campaignId, r.line);
    let made = false;
    try {
      made = await ensureEntry(deps, ws, entryId, campaignId, r.line, row);
      await putRowMetas(deps, entryId, row, r.details?.former_platform as string | undefined);
      await startJob(deps, ws, {
        id: jobId,
        workflow_id: REGISTRATION_WORKFLOW_ID,
        silo_entry_id: entryId,
        key,
        args: {},
        tags: ['campaign'],
        priority: jobPriority(key, ws),
      });
      done.push({ line: r.line, entryId, jobId });
    } catch (err) {
      if (err instanceof ConflictError && err.code === 'id-taken') done.push({ line: r.line, entryId, jobId });
      else if (err instanceof DomainError || err instanceof ConflictError)
        // Registered or being registered since the dry run, or a row the registration refuses: said on the row.
        done.push({ line: r.line, ...(made && { entryId }), fault: `${err.code}: ${err.message}` });
      else throw err;
    }
  }
  await recordLaunched(deps.db, campaignId, done);
  return {
    status: 'running',
    ...(rows.length > 0 && { next: rows.at(-1)!.line }),
    launched: done.filter((d) => d.jobId).length,
    refused: done.filter((d) => d.fault).length,
  };
}

/** The row's entry, made once (true once it exists, made now or before). */
async function ensureEntry(
  deps: LaunchDeps,
  workspaceId: string,
  entryId: string,
  campaignId: string,
  line: number,
  row: CampaignRow,
): Promise<boolean> {
  try {
    await createPartyEntry(deps.db, workspaceId, entryId, {
      data: row.party as unknown as Record<string, unknown>,
      key: campaignRowKey(campaignId, line),
    });
  } catch (err) {
    if (!(err instanceof ConflictError && err.code === 'id-taken')) throw err;
  }
  return true;
}

/** Its addresses, and the consent to the take-over the dry run found. */
async function putRowMetas(
  deps: LaunchDeps,
  entryId: string,
  row: CampaignRow,
  formerPlatform: string | undefined,
): Promise<void> {
  const metas: [string, unknown][] = [
    ...(row.invoicing ? [[INVOICING_ADDRESSES_META, row.invoicing] as [string, unknown]] : []),
    ...(formerPlatform ? [[FORMER_MATRICULE_META, formerPlatform] as [string, unknown]] : []),
  ];
  for (const [key, value] of metas)
    await putMeta(deps.db, entryId, key, callerMeta(key, { src: 'campaign', value }, row.siren, deps.us));
}
