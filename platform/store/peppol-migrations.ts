// Migrations of our Peppol participants to another SMP (table peppol_migrations): the key prepared at the SML for a
// participant, kept as its SHA-256 only (the key itself is answered once, to be handed to the company), and when we
// saw the participant had gone.
import crypto from 'node:crypto';
import type { Queryable } from './db';
import { iso } from './rows';

interface Row {
  participant_id: string;
  workspace_id: string;
  entry_id: string;
  key_sha256: string;
  prepared_at: Date;
  migrated_at: Date | null;
}

export interface PreparedMigration {
  participantId: string;
  workspaceId: string;
  entryId: string;
  keySha256: string;
  preparedAt: string;
  migratedAt?: string;
}

const view = (r: Row): PreparedMigration => ({
  participantId: r.participant_id,
  workspaceId: r.workspace_id,
  entryId: r.entry_id,
  keySha256: r.key_sha256,
  preparedAt: iso(r.prepared_at)!,
  ...(r.migrated_at && { migratedAt: iso(r.migrated_at) }),
});

export const migrationKeySha256 = (key: string): string =>
  crypto.createHash('sha256').update(key, 'utf8').digest('hex');

/** Records the migration prepared with `key` (its hash); preparing again replaces the key, as at the SML. */
export async function recordPreparedMigration(
  db: Queryable,
  m: { participantId: string; workspaceId: string; entryId: string; key: string },
): Promise<PreparedMigration> {
  const { rows } = await db.query<Row>(
    `INSERT INTO peppol_migrations (participant_id, workspace_id, entry_id, key_sha256) VALUES ($1, $2, $3, $4)
     ON CONFLICT (participant_id) DO UPDATE SET workspace_id = EXCLUDED.workspace_id, entry_id = EXCLUDED.entry_id,
       key_sha256 = EXCLUDED.key_sha256, prepared_at = now(), migrated_at = NULL
     RETURNING *`,
    [m.participantId, m.workspaceId, m.entryId, migrationKeySha256(m.key)],
  );
  return view(rows[0]!);
}

/** The migration prepared for a participant (any entry), if any. */
export async function preparedMigration(db: Queryable, participantId: string): Promise<PreparedMigration | undefined> {
  const { rows } = await db.query<Row>('SELECT * FROM peppol_migrations WHERE participant_id = $1', [participantId]);
  return rows[0] && view(rows[0]);
}

/** The migration prepared for a participant of this entry of this workspace, if any. */
export async function entryMigration(
  db: Queryable,
  workspaceId: string,
  entryId: string,
  participantId: string,
): Promise<PreparedMigration | undefined> {
  const { rows } = await db.query<Row>(
    'SELECT * FROM peppol_migrations WHERE participant_id = $1 AND workspace_id = $2 AND entry_id = $3',
    [participantId, workspaceId, entryId],
  );
  return rows[0] && view(rows[0]);
}

/** The new SMP has migrated the participant: recorded once (the first time seen). */
export async function markMigrated(db: Queryable, participantId: string): Promise<PreparedMigration | undefined> {
  const { rows } = await db.query<Row>(
    `UPDATE peppol_migrations SET migrated_at = COALESCE(migrated_at, now()) WHERE participant_id = $1 RETURNING *`,
    [participantId],
  );
  return rows[0] && view(rows[0]);
}

/**
 * Forgets a prepared migration that did not happen: we removed the participant from the SML ourselves (the SML forgets
 * its migration with it). A completed one (migrated_at set) stays as history.
 */
export async function dropPendingMigration(db: Queryable, participantId: string): Promise<void> {
  await db.query('DELETE FROM peppol_migrations WHERE participant_id = $1 AND migrated_at IS NULL', [participantId]);
}
