// apps/peppol/v1: a company leaving us for another Peppol provider takes its participants with it (outbound
// migration): the key prepared at the SML is answered once (domain/peppol/prepare-outbound-migration.ts), and the
// GET finds out whether the new provider has migrated it (domain/peppol/settle-outbound-migration.ts: then our SMP
// record is disabled). The inbound way (a key the company brings us) is the registration's: the meta key
// `peppol-migration-key` (domain/party/peppol-migration.ts).
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Db } from '../../platform/store/db';
import { getEntry } from '../../platform/store/entries';
import { InvalidParticipantIdError, normaliseParticipantId } from '../../integrations/peppol/participant-id';
import { RemoteFailure } from '../../domain/remote-failure';
import type { SmlRegistry } from '../../domain/peppol/ports';
import { prepareOutboundMigration } from '../../domain/peppol/prepare-outbound-migration';
import { settleOutboundMigration } from '../../domain/peppol/settle-outbound-migration';
import { coded, notFound, remoteProblem } from '../../web/http/problem';
import { route } from '../../web/http/route';
import { auth } from '../auth';

const timestamp = z.iso.datetime({ offset: true });

const isParticipantId = (v: string) => {
  try {
    normaliseParticipantId(v);
    return true;
  } catch (err) {
    if (err instanceof InvalidParticipantIdError) return false;
    throw err;
  }
};

export const participantParams = z.object({
  silo_entry_id: z.uuid({ error: 'must be a UUID' }),
  participant_id: z
    .string()
    .max(300, 'must be at most 300 characters')
    .refine(
      isParticipantId,
      'must be a Peppol participant id: iso6523-actorid-upis::0225:<address> (or 0225:<address>), percent-encoded',
    )
    .describe(
      "one of the entry's Peppol participants, iso6523-actorid-upis::0225:<address> (or 0225:<address>), percent-encoded",
    ),
});

export const migrationKeyIssued = z
  .object({
    participant_id: z.string().describe('the participant, normalised: iso6523-actorid-upis::0225:<address>'),
    migration_key: z
      .string()
      .describe(
        'the key to hand to the new provider, who calls SML Migrate with it: shown in this answer only (we keep its hash)',
      ),
    prepared_at: timestamp,
  })
  .meta({ id: 'PeppolMigrationKey' });

export const migrationStatus = z
  .object({
    participant_id: z.string(),
    prepared_at: timestamp.describe('when the last key was issued'),
    migrated: z
      .boolean()
      .describe('whether the new provider has migrated it (our SMP then no longer serves it); false: still ours'),
    migrated_at: timestamp.optional().describe('when we found it migrated'),
  })
  .meta({ id: 'PeppolMigration' });

type Deps = { db: Db; log: Logger; sml: SmlRegistry };

/** The SML failing us: 503 to retry (its Retry-After passed on), 502 if it refused; anything else as it is. */
function smlProblem(err: unknown, what: string): unknown {
  if (!(err instanceof RemoteFailure)) return err;
  return err.retryable ? remoteProblem(err) : coded(502, 'sml-refused', `the SML refused ${what}: ${err.message}`);
}

/** The entry (of the caller's workspace) and the participant id, normalised; 404 for an entry not found. */
async function target(db: Db, workspaceId: string, p: z.output<typeof participantParams>) {
  if (!(await getEntry(db, workspaceId, p.silo_entry_id))) throw notFound(`entry ${p.silo_entry_id}`);
  return { workspaceId, entryId: p.silo_entry_id, participantId: normaliseParticipantId(p.participant_id) };
}

const PATH = '/apps/peppol/v1/entry/:silo_entry_id/participants/:participant_id/migration-key';

export const peppolRoutes = [
  route({
    method: 'post',
    path: PATH,
    operationId: 'prepareMigration',
    summary: 'Issue a migration key for a Peppol participant moving to another provider (shown once)',
    description:
      'For a company moving to another Peppol provider: prepares the migration of one of its participants at the SML (PrepareToMigrate) with a new key, and answers the key — ' +
      'in this answer only (we keep its hash): the company hands it to its new provider, whose SMP calls SML Migrate with it. Our SMP serves the participant until then. ' +
      'Issuing a key again replaces the previous one. A participant published in our SMP only (not at the SML) has nothing to migrate (409 `not-in-sml`). ' +
      "Coming the other way, the key from the previous provider goes in the entry's meta key `peppol-migration-key` before the registration runs.",
    scope: 'entries:rw',
    params: participantParams,
    responses: { 201: migrationKeyIssued },
    errors: ['not-in-sml', 'not-published', 'sml-unavailable', 'sml-refused'],
    handle: async ({ params, res }, deps: Deps) => {
      const at = await target(deps.db, auth(res).workspaceId, params);
      const m = await prepareOutboundMigration(deps, at).catch((err: unknown) => {
        throw smlProblem(err, `to prepare the migration of ${at.participantId}`);
      });
      res.status(201).json({ participant_id: at.participantId, migration_key: m.key, prepared_at: m.preparedAt });
    },
  }),
  route({
    method: 'get',
    path: PATH,
    operationId: 'getMigration',
    summary: "A participant's migration to another provider: prepared, or done",
    description:
      'Whether the new provider has migrated the participant (`migrated`), asked of the SML. Once it has, our SMP record is disabled: we no longer serve the participant. 404 until a key has been issued.',
    scope: 'entries:rw',
    params: participantParams,
    responses: { 200: migrationStatus },
    errors: ['sml-unavailable', 'sml-refused'],
    handle: async ({ params, res }, deps: Deps) => {
      const at = await target(deps.db, auth(res).workspaceId, params);
      const m = await settleOutboundMigration(deps, at).catch((err: unknown) => {
        throw smlProblem(err, 'to list our participants');
      });
      if (!m) throw notFound(`a migration key issued for ${at.participantId} of entry ${at.entryId}`);
      return {
        participant_id: at.participantId,
        prepared_at: m.preparedAt,
        migrated: m.migratedAt !== undefined,
        ...(m.migratedAt && { migrated_at: m.migratedAt }),
      };
    },
  }),
];
