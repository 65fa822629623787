// Which entry holds a SIREN's directory lines on our matricule, and the line of each invoicing address.
import type { Queryable } from './db';

export async function directoryHolder(db: Queryable, siren: string): Promise<string | undefined> {
  const { rows } = await db.query<{ entry_id: string }>('SELECT entry_id FROM directory_holdings WHERE siren = $1', [
    siren,
  ]);
  return rows[0]?.entry_id;
}

/** Records the entry as the holder; false when another entry holds the SIREN already. */
export async function holdDirectoryLine(
  db: Queryable,
  siren: string,
  entryId: string,
  idInstance: number,
): Promise<boolean> {
  const r = await db.query(
    `INSERT INTO directory_holdings (siren, entry_id, id_instance) VALUES ($1, $2, $3)
     ON CONFLICT (siren) DO UPDATE SET id_instance = EXCLUDED.id_instance WHERE directory_holdings.entry_id = EXCLUDED.entry_id`,
    [siren, entryId, idInstance],
  );
  return r.rowCount > 0;
}

export async function releaseDirectoryLine(db: Queryable, siren: string, entryId: string): Promise<void> {
  await db.query('DELETE FROM directory_holdings WHERE siren = $1 AND entry_id = $2', [siren, entryId]);
}

/**
 * Our line for one invoicing address (its identifier: SIREN, SIREN_SIRET, SIREN_SIRET_ROUTAGE or SIREN_SUFFIXE), as
 * the directory was read back to hold it: from `startsOn`, read at `readBackAt`.
 */
export async function recordDirectoryLine(
  db: Queryable,
  l: { address: string; siren: string; entryId: string; idInstance: number; startsOn?: string; readBackAt?: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO directory_lines (address_id, siren, entry_id, id_instance, starts_on, read_back_at)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (address_id) DO UPDATE SET id_instance = EXCLUDED.id_instance, entry_id = EXCLUDED.entry_id,
       starts_on = EXCLUDED.starts_on, read_back_at = EXCLUDED.read_back_at, since = now()`,
    [l.address, l.siren, l.entryId, l.idInstance, l.startsOn ?? null, l.readBackAt ?? null],
  );
}

/** The lines an entry holds, by address. */
export async function entryDirectoryLines(
  db: Queryable,
  entryId: string,
): Promise<{ address: string; idInstance: number }[]> {
  const { rows } = await db.query<{ address_id: string; id_instance: string }>(
    'SELECT address_id, id_instance FROM directory_lines WHERE entry_id = $1 ORDER BY address_id',
    [entryId],
  );
  return rows.map((r) => ({ address: r.address_id, idInstance: Number(r.id_instance) }));
}

export async function forgetDirectoryLines(db: Queryable, entryId: string): Promise<void> {
  await db.query('DELETE FROM directory_lines WHERE entry_id = $1', [entryId]);
}

export async function forgetDirectoryLine(db: Queryable, entryId: string, address: string): Promise<void> {
  await db.query('DELETE FROM directory_lines WHERE entry_id = $1 AND address_id = $2', [entryId, address]);
}
