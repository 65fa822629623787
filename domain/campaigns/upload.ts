// A campaign made from a file as it arrives: each record checked (row.ts) and written with its line a batch at a
// time, so that neither the file nor its rows are ever whole in memory; the file refused whole only for what makes
// it unreadable (read-file.ts), and then nothing is kept. The campaign is identified by the client's key or the
// file's SHA-256: sent twice, the same file is the same campaign.
import crypto from 'node:crypto';
import type { Db } from '../../platform/store/db';
import {
  completeUpload,
  dropUpload,
  insertCampaign,
  insertCampaignRows,
  type CampaignRecord,
  type StagedRow,
} from '../../platform/store/campaigns';
import { DomainError } from '../errors';
import { readCampaignFile, type CampaignFileFormat, type FileLimits, type FileTally } from './read-file';
import { checkRow, signerKeyOf } from './row';

/**
 * Rows written per statement: on PostgreSQL, few round trips; the embedded store (PGlite) runs each statement on the
 * event loop, where 100 rows take ~15 ms (at times 80: its memory grows), the other requests waiting meanwhile.
 */
const BATCH = { postgres: 1000, pglite: 100 } as const;
/** Rows checked between two turns of the event loop: a few milliseconds, so that other requests are answered. */
const SLICE = 50;

export interface UploadInput {
  workspaceId: string;
  format: CampaignFileFormat;
  /** The client's key for the campaign; the file's SHA-256 identifies it without one. */
  key?: string;
  body: AsyncIterable<Uint8Array>;
  limits: FileLimits;
  /** Our matricule (a former platform may not be ours). */
  us: string;
  now?: Date;
}

export async function uploadCampaign(
  db: Db,
  input: UploadInput,
): Promise<{ campaign: CampaignRecord; existing: boolean }> {
  const id = crypto.randomUUID();
  await insertCampaign(db, { id, workspaceId: input.workspaceId, format: input.format });
  const tally: FileTally = { sha256: '', bytes: 0, rows: 0 };
  const now = input.now ?? new Date();
  try {
    let batch: StagedRow[] = [];
    for await (const r of readCampaignFile(input.body, input.format, input.limits, tally)) {
      if ('faults' in r) batch.push({ line: r.line, faults: r.faults });
      else {
        const checked = checkRow(r.record, input.us, now);
        batch.push(
          'row' in checked
            ? { line: r.line, siren: checked.row.siren, data: checked.row, signerKey: signerKeyOf(checked.row) }
            : {
                line: r.line,
                ...(checked.siren && { siren: checked.siren }),
                ...(checked.name && { name: checked.name }),
                faults: checked.faults,
              },
        );
      }
      if (batch.length % SLICE === 0) await new Promise((r) => setImmediate(r));
      if (batch.length >= BATCH[db.engine]) {
        await insertCampaignRows(db, id, batch);
        batch = [];
      }
    }
    await insertCampaignRows(db, id, batch);
  } catch (err) {
    await dropUpload(db, id);
    throw err;
  }
  const key = input.key ?? `sha256:${tally.sha256}`;
  const done = await completeUpload(db, id, { key, sha256: tally.sha256, bytes: tally.bytes, rows: tally.rows });
  if (done.existing && done.campaign.file_sha256 !== tally.sha256)
    throw new DomainError(
      'campaign-key-taken',
      `campaign ${done.campaign.id} has the key ${key} and was made from another file (SHA-256 ${done.campaign.file_sha256}): choose another key, or leave it out to identify the campaign by its file`,
    );
  return done;
}
