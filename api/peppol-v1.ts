// apps/peppol/v1: a company leaving us for another Peppol provider takes its participants with it (outbound
// migration). We prepare the migration at the SML (PrepareToMigrate) with a new key and answer the key once: the company
// hands it to its new provider, whose SMP calls Migrate with it. Only the key's hash is kept
// (platform/store/peppol-migrations.ts). Our SMP keeps serving the participant until the new SMP has migrated it;
// nothing watches for that (no sweep, no workflow): the GET below asks the SML and settles what it finds, by the rule
// the Peppol steps apply too (domain/peppol/settle-outbound-migration.ts). The inbound way (a key the company brings
// us) is the registration's: the meta key `peppol-migration-key` (domain/party/peppol-migration.ts).
import { Router, type Request } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { SmlError, type SmlClient } from '../integrations/peppol/sml-client';
import { newMigrationKey } from '../domain/party/migration-key';
import { InvalidParticipantIdError, normaliseParticipantId } from '../integrations/peppol/participant-id';
import { RemoteFailure } from '../domain/remote-failure';
import { DomainError } from '../domain/errors';
import type { Db } from '../platform/store/db';
import { getEntry } from '../platform/store/entries';
import { entryParticipants } from '../platform/store/peppol-participants';
import { recordPreparedMigration } from '../platform/store/peppol-migrations';
import { settleOutboundMigration } from '../domain/peppol/settle-outbound-migration';
import { coded, notFound, remoteProblem } from '../web/http/problem';
import { params } from '../web/http/validate';
import { auth, requireScope } from './auth';

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

export interface PeppolRouterDeps {
  db: Db;
  log: Logger;
  /** Our SMP's SML client, built once by the app (integrations/clients.ts, as the worker's). */
  sml: SmlClient;
}

/** The SML failing us: 503 to retry (its Retry-After passed on), 502 if it refused; anything else as it is. */
function smlProblem(err: unknown, what: string): unknown {
  if (!(err instanceof RemoteFailure)) return err;
  return err.retryable ? remoteProblem(err) : coded(502, 'sml-refused', `the SML refused ${what}: ${err.message}`);
}

export function peppolRouter({ db, log, sml }: PeppolRouterDeps): Router {
  const r = Router();
  r.use('/entry/:silo_entry_id', requireScope('entries:rw'));

  /** The entry (of the caller's workspace) and the participant id, normalised; 404 for an entry not found. */
  async function target(req: Request, workspaceId: string) {
    const p = params(req, participantParams);
    const participantId = normaliseParticipantId(p.participant_id);
    if (!(await getEntry(db, workspaceId, p.silo_entry_id))) throw notFound(`entry ${p.silo_entry_id}`);
    return { entryId: p.silo_entry_id, participantId };
  }

  const path = '/entry/:silo_entry_id/participants/:participant_id/migration-key';

  r.post(path, async (req, res) => {
    const workspaceId = auth(res).workspaceId;
    const { entryId, participantId } = await target(req, workspaceId);
    const records = await entryParticipants(db, workspaceId, entryId);
    const rec = records.find((p) => p.participantId === participantId);
    if (!rec) {
      const ours = records.filter((p) => p.enabled).map((p) => p.participantId);
      throw notFound(
        `Peppol participant ${participantId} of entry ${entryId} (${ours.length > 0 ? `its participants: ${ours.join(', ')}` : 'it has none published yet'})`,
      );
    }
    if (!rec.enabled)
      throw new DomainError(
        'not-published',
        `${participantId} is no longer published by us (unregistered, its address ended, or migrated away): there is no migration to prepare`,
      );
    if (!rec.smlRegistered)
      throw new DomainError(
        'not-in-sml',
        `${participantId} is not registered at the SML by us (visibility ${rec.visibility}, or its registration has not reached the SML): there is no migration to prepare — the new provider registers it at the SML directly`,
      );
    const key = newMigrationKey();
    try {
      await sml.prepareToMigrate(participantId, key);
    } catch (err) {
      if (err instanceof SmlError && (err.kind === 'NotFoundFault' || err.kind === 'UnauthorizedFault'))
        throw new DomainError(
          'not-in-sml',
          `the SML does not hold ${participantId} for our SMP (${err.message}): there is no migration to prepare`,
        );
      throw smlProblem(err, `to prepare the migration of ${participantId}`);
    }
    const m = await recordPreparedMigration(db, { participantId, workspaceId, entryId, key });
    log.info({ participantId, entryId }, 'peppol migration prepared'); // never the key
    res.status(201).json({ participant_id: participantId, migration_key: key, prepared_at: m.preparedAt });
  });

  r.get(path, async (req, res) => {
    const workspaceId = auth(res).workspaceId;
    const { entryId, participantId } = await target(req, workspaceId);
    const m = await settleOutboundMigration({ db, log, sml }, { workspaceId, entryId, participantId }).catch(
      (err: unknown) => {
        throw smlProblem(err, 'to list our participants');
      },
    );
    if (!m) throw notFound(`a migration key issued for ${participantId} of entry ${entryId}`);
    res.json({
      participant_id: participantId,
      prepared_at: m.preparedAt,
      migrated: m.migratedAt !== undefined,
      ...(m.migratedAt && { migrated_at: m.migratedAt }),
    });
  });

  return r;
}
