// Which entry holds a SIREN's directory line on our matricule.
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
