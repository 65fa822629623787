// Registered parties written in bulk, each with its directory line and its Peppol participant as the registration
// leaves them: the reconciliation benchmark's fixture (bench/reconcile.ts), not a path of the service. One statement
// per table, however many.
import type { Queryable } from './db';

export interface RegisteredPartySeed {
  entryId: string;
  siren: string;
  /** The line the directory holds for the SIREN on our matricule. */
  idInstance: number;
  /** iso6523-actorid-upis::0225:<siren>, as our SMP publishes it. */
  participantId: string;
}

export async function insertRegisteredParties(
  db: Queryable,
  workspaceId: string,
  seeds: RegisteredPartySeed[],
): Promise<void> {
  const col = <T>(f: (s: RegisteredPartySeed) => T) => seeds.map(f);
  await db.query(
    `INSERT INTO entries (id, workspace_id, doc_schema, data, siren, state)
     SELECT id, $1, 'https://gobl.org/draft-0/org/party', jsonb_build_object('name', 'Bench ' || siren), siren, 'registered'
     FROM unnest($2::uuid[], $3::text[]) AS t(id, siren)`,
    [workspaceId, col((s) => s.entryId), col((s) => s.siren)],
  );
  await db.query(
    `INSERT INTO directory_lines (address_id, siren, entry_id, id_instance, read_back_at)
     SELECT siren, siren, id, line, now() - interval '2 days' FROM unnest($1::uuid[], $2::text[], $3::bigint[]) AS t(id, siren, line)`,
    [col((s) => s.entryId), col((s) => s.siren), col((s) => s.idInstance)],
  );
  await db.query(
    `INSERT INTO peppol_participants (participant_id, workspace_id, entry_id, doc_groups, visibility, directory, sml_registered)
     SELECT p, $1, id, '{france}', 'smp+sml+peppol', true, true FROM unnest($2::text[], $3::uuid[]) AS t(p, id)`,
    [workspaceId, col((s) => s.participantId), col((s) => s.entryId)],
  );
}
