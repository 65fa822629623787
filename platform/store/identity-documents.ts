// The signer's identity documents (front, back, or a passport page), encrypted, kept with the entry's mandate until
// the retention rules drop them.
import type { Queryable } from './db';
import { iso } from './rows';

export type IdentityView = 'front' | 'back' | 'page';

/** Removes the signer's identity document images (their hashes stay in the audit trail). */
export async function dropIdentityDocuments(q: Queryable, entryId: string): Promise<void> {
  await q.query('DELETE FROM identity_documents WHERE entry_id = $1', [entryId]);
}

/** `sealed` is the image encrypted by the caller; sha256 and size are the plain image's, for the audit trail. */
export async function putIdentityDocument(
  db: Queryable,
  entryId: string,
  view: IdentityView,
  doc: { mime: string; sealed: Uint8Array; sha256: string; size: number },
) {
  const { mime, sealed: data, sha256 } = doc;
  await db.query(
    `INSERT INTO identity_documents (entry_id, view, mime, sha256, size, data) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (entry_id, view) DO UPDATE SET mime = EXCLUDED.mime, sha256 = EXCLUDED.sha256, size = EXCLUDED.size,
       data = EXCLUDED.data, created_at = now()`,
    [entryId, view, mime, sha256, doc.size, data],
  );
  return { view, mime, sha256, size: doc.size };
}

export async function identityViews(db: Queryable, entryId: string) {
  const { rows } = await db.query<{ view: IdentityView; mime: string; sha256: string; size: number; created_at: Date }>(
    // As a reader turns the document over: front, then back (a passport has its page alone).
    `SELECT view, mime, sha256, size, created_at FROM identity_documents WHERE entry_id = $1
     ORDER BY CASE view WHEN 'front' THEN 0 WHEN 'back' THEN 1 ELSE 2 END`,
    [entryId],
  );
  return rows.map((r) => ({ ...r, created_at: iso(r.created_at) }));
}

export async function getIdentityDocument(db: Queryable, entryId: string, view: IdentityView) {
  const { rows } = await db.query<{ mime: string; data: Uint8Array }>(
    'SELECT mime, data FROM identity_documents WHERE entry_id = $1 AND view = $2',
    [entryId, view],
  );
  return rows[0];
}
