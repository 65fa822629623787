// Our SMP records (table peppol_participants): which entry a participant id is published for, and where.
import { EventEmitter } from 'node:events';
import type { Db, Queryable } from './db';
import { iso, isUniqueViolation } from './rows';

export const VISIBILITIES = ['smp', 'smp+sml', 'smp+sml+peppol'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

interface Row {
  participant_id: string;
  workspace_id: string;
  entry_id: string;
  doc_groups: string[];
  visibility: Visibility;
  directory: boolean;
  enabled: boolean;
  sml_registered: boolean;
  directory_registered: boolean;
  directory_card: string | null;
  created_at: Date;
  updated_at: Date;
  disabled_at: Date | null;
}

export interface SmpRecord {
  participantId: string;
  workspaceId: string;
  entryId: string;
  docGroups: string[];
  visibility: Visibility;
  directory: boolean;
  enabled: boolean;
  smlRegistered: boolean;
  directoryRegistered: boolean;
  /** What the Directory was last asked to index (domain/peppol/directory-card.ts); null when not indexed. */
  directoryCard: string | null;
  createdAt: string;
  updatedAt: string;
  disabledAt?: string;
}

const view = (r: Row): SmpRecord => ({
  participantId: r.participant_id,
  workspaceId: r.workspace_id,
  entryId: r.entry_id,
  docGroups: r.doc_groups,
  visibility: r.visibility,
  directory: r.directory,
  enabled: r.enabled,
  smlRegistered: r.sml_registered,
  directoryRegistered: r.directory_registered,
  directoryCard: r.directory_card,
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
  ...(r.disabled_at && { disabledAt: iso(r.disabled_at) }),
});

/**
 * Emits `change` (participant id) after a record is published or disabled in this process, so that caches of
 * what our SMP serves drop it at once (other processes' caches rely on their own expiry).
 */
export const smpRecordChanges = new EventEmitter().setMaxListeners(0); // a listener per SMP (smp-documents.ts)

/** The participant is enabled for another entry (of this or another workspace). */
export class ParticipantTakenError extends Error {
  constructor(readonly participantId: string) {
    super(`${participantId} is already published for another entry`);
  }
}

export async function findEnabledParticipant(db: Queryable, participantId: string): Promise<SmpRecord | undefined> {
  const { rows } = await db.query<Row>('SELECT * FROM peppol_participants WHERE participant_id = $1 AND enabled', [
    participantId,
  ]);
  return rows[0] && view(rows[0]);
}

export async function entryParticipants(db: Queryable, workspaceId: string, entryId: string): Promise<SmpRecord[]> {
  const { rows } = await db.query<Row>(
    'SELECT * FROM peppol_participants WHERE workspace_id = $1 AND entry_id = $2 ORDER BY created_at, participant_id',
    [workspaceId, entryId],
  );
  return rows.map(view);
}

/**
 * Enables (inserting or updating) the record of `participantId` for this entry. Running it again for the same
 * entry is an update; for another entry while enabled it throws ParticipantTakenError (the partial unique
 * index settles races between two entries).
 */
export async function publishParticipant(
  db: Db,
  p: {
    participantId: string;
    workspaceId: string;
    entryId: string;
    docGroups: string[];
    visibility: Visibility;
    directory: boolean;
  },
): Promise<SmpRecord> {
  try {
    const rec = await db.tx(async (q) => {
      const holder = await findEnabledParticipant(q, p.participantId);
      if (holder && (holder.entryId !== p.entryId || holder.workspaceId !== p.workspaceId))
        throw new ParticipantTakenError(p.participantId);
      const { rows } = await q.query<Row>(
        `INSERT INTO peppol_participants (participant_id, workspace_id, entry_id, doc_groups, visibility, directory)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (participant_id, entry_id) DO UPDATE SET doc_groups = EXCLUDED.doc_groups,
           visibility = EXCLUDED.visibility, directory = EXCLUDED.directory, enabled = true, disabled_at = NULL,
           updated_at = now()
         RETURNING *`,
        [p.participantId, p.workspaceId, p.entryId, p.docGroups, p.visibility, p.directory],
      );
      return view(rows[0]!);
    });
    smpRecordChanges.emit('change', p.participantId);
    return rec;
  } catch (err) {
    if (isUniqueViolation(err)) throw new ParticipantTakenError(p.participantId);
    throw err;
  }
}

/** Records what the SML and the Directory now hold for this record (the Directory's card with it: none once removed). */
export async function markPublication(
  db: Queryable,
  participantId: string,
  entryId: string,
  state: { smlRegistered?: boolean; directoryRegistered?: boolean; directoryCard?: string },
): Promise<void> {
  await db.query(
    `UPDATE peppol_participants SET sml_registered = COALESCE($3, sml_registered),
       directory_registered = COALESCE($4, directory_registered),
       directory_card = CASE WHEN $4 = false THEN NULL ELSE COALESCE($5, directory_card) END, updated_at = now()
     WHERE participant_id = $1 AND entry_id = $2`,
    [
      participantId,
      entryId,
      state.smlRegistered ?? null,
      state.directoryRegistered ?? null,
      state.directoryCard ?? null,
    ],
  );
}

/** Disables the record (kept as history); the SML and Directory flags are cleared. No-op if already disabled. */
export async function disableParticipant(db: Queryable, participantId: string, entryId: string): Promise<boolean> {
  const r = await db.query(
    `UPDATE peppol_participants SET enabled = false, sml_registered = false, directory_registered = false,
       directory_card = NULL, disabled_at = now(), updated_at = now()
     WHERE participant_id = $1 AND entry_id = $2 AND enabled`,
    [participantId, entryId],
  );
  smpRecordChanges.emit('change', participantId);
  return r.rowCount > 0;
}

/** Every enabled record: what our SMP serves. */
export async function enabledParticipants(db: Queryable): Promise<SmpRecord[]> {
  const { rows } = await db.query<Row>('SELECT * FROM peppol_participants WHERE enabled ORDER BY participant_id');
  return rows.map(view);
}
