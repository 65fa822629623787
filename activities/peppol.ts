// `peppol.register` / `peppol.unregister`: publish a party in our SMP, at the SML and in the Peppol Directory.
// Every step is idempotent (an activity may run twice): re-creating what exists and deleting what is gone succeed.
import { ApplicationFailure } from '@temporalio/activity';
import { z } from 'zod';
import { DOC_GROUPS, isDocGroup } from '../integrations/peppol/doc-groups';
import {
  formatParticipantId,
  frenchParticipantId,
  InvalidParticipantIdError,
  type ParticipantId,
} from '../integrations/peppol/participant-id';
import { SmlError } from '../integrations/peppol/sml-client';
import type { Clients } from '../integrations/clients';
import {
  disableParticipant,
  entryParticipants,
  markPublication,
  ParticipantTakenError,
  publishParticipant,
  VISIBILITIES,
  type SmpRecord,
  type Visibility,
} from '../platform/store/peppol-participants';
import { approvedMandate } from '../platform/store/agreements';
import type { StepInput } from '../workflows/types';
import type { ActivityDeps } from './deps';
import type { Commit } from './journalled';
import { rethrowRemote } from './remote-failure';
import { entrySiren } from './entry-siren';

const registerConfig = z.strictObject({
  // Every party here is French (it has a SIREN), hence `france` by default.
  doc_groups: z
    .array(z.string().refine(isDocGroup, { message: `a doc group is one of ${DOC_GROUPS.join(', ')}` }))
    .min(1)
    .default(['france']),
  visibility: z.enum(VISIBILITIES).default('smp+sml+peppol'),
  directory: z.boolean().default(true),
  disable: z.boolean().default(false),
});

export interface PeppolStepResult {
  participantId?: string;
  visibility?: Visibility;
  enabled: boolean;
  sml: boolean;
  directory: boolean;
}

const wantsSml = (v: Visibility) => v !== 'smp';
const wantsDirectory = (r: Pick<SmpRecord, 'visibility' | 'directory'>) =>
  r.visibility === 'smp+sml+peppol' && r.directory;

export function peppolActivities({ db, log }: ActivityDeps, { sml, directory }: Pick<Clients, 'sml' | 'directory'>) {
  async function smlCreate(id: string): Promise<void> {
    try {
      await sml.create(id);
    } catch (err) {
      // "Already exists" is success only if it is ours (a previous run); otherwise another SMP holds it.
      if (!(err instanceof SmlError && err.alreadyExists)) rethrowRemote(err, `SML registration of ${id}`);
      const ours = await sml.list().catch((e) => rethrowRemote(e, 'SML list'));
      if (!ours.includes(id))
        throw ApplicationFailure.nonRetryable(`${id} is registered at the SML by another SMP`, 'sml-conflict');
    }
  }

  async function smlDelete(id: string): Promise<void> {
    try {
      await sml.delete(id);
    } catch (err) {
      if (!(err instanceof SmlError && err.kind === 'NotFoundFault')) rethrowRemote(err, `SML removal of ${id}`);
    }
  }

  /** Directory first (it must stop pointing at us), then the SML, then our record (kept, disabled). */
  async function unpublish(r: SmpRecord): Promise<void> {
    if (r.directoryRegistered || wantsDirectory(r))
      await directory.remove(r.participantId).catch((e) => rethrowRemote(e, `Directory removal of ${r.participantId}`));
    if (r.smlRegistered || wantsSml(r.visibility)) await smlDelete(r.participantId);
    await disableParticipant(db, r.participantId, r.entryId);
  }

  async function participantOf(input: StepInput): Promise<ParticipantId> {
    const siren = await entrySiren(db, input);
    try {
      return frenchParticipantId(siren);
    } catch (err) {
      if (err instanceof InvalidParticipantIdError)
        throw ApplicationFailure.nonRetryable(err.message, 'invalid-participant-id');
      throw err;
    }
  }

  async function register(input: StepInput, commit: Commit = (write) => db.tx(write)): Promise<PeppolStepResult> {
    const parsed = registerConfig.safeParse(input.config ?? {});
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'config'}: ${i.message}`).join('; ');
      throw ApplicationFailure.nonRetryable(`peppol.register config is invalid: ${issues}`, 'invalid-config');
    }
    const cfg = parsed.data;
    const pid = await participantOf(input);
    const id = formatParticipantId(pid);
    const ctx = { jobId: input.jobId, entryId: input.entryId, participantId: id };

    if (cfg.disable) {
      const mine = (await entryParticipants(db, input.workspaceId, input.entryId)).filter(
        (r) => r.enabled && r.participantId === id,
      );
      for (const r of mine) await unpublish(r);
      log.info({ ...ctx, unpublished: mine.length }, 'peppol participant disabled');
      return { participantId: id, enabled: false, sml: false, directory: false };
    }

    // Publishing makes the company reachable on Peppol: only with its signed, approved mandate.
    if (!(await approvedMandate(db, input.entryId))) {
      throw ApplicationFailure.nonRetryable(
        'the party has no signed and approved mandate: peppol.register must follow gov-fr.agreement.sign and the approval wait',
        'mandate-not-approved',
      );
    }
    let rec: SmpRecord;
    try {
      rec = await publishParticipant(db, {
        participantId: id,
        workspaceId: input.workspaceId,
        entryId: input.entryId,
        docGroups: cfg.doc_groups,
        visibility: cfg.visibility,
        directory: cfg.directory,
      });
    } catch (err) {
      // The specification's wording: "<scheme>:<code> is already registered".
      if (err instanceof ParticipantTakenError)
        throw ApplicationFailure.nonRetryable(`${pid.icd}:${pid.code} is already registered`, 'already-registered');
      throw err;
    }
    // Narrowing a visibility withdraws what is no longer wanted, Directory before SML.
    if (!wantsDirectory(rec) && rec.directoryRegistered) {
      await directory.remove(id).catch((e) => rethrowRemote(e, `Directory removal of ${id}`));
      await markPublication(db, id, input.entryId, { directoryRegistered: false });
    }
    if (wantsSml(rec.visibility)) {
      await smlCreate(id);
      await markPublication(db, id, input.entryId, { smlRegistered: true });
    } else if (rec.smlRegistered) {
      await smlDelete(id);
      await markPublication(db, id, input.entryId, { smlRegistered: false });
    }
    if (wantsDirectory(rec)) {
      await directory.index(id).catch((e) => rethrowRemote(e, `Directory indexing of ${id}`));
      await commit((q) => markPublication(q, id, input.entryId, { directoryRegistered: true }));
    }
    const result = {
      participantId: id,
      visibility: rec.visibility,
      enabled: true,
      sml: wantsSml(rec.visibility),
      directory: wantsDirectory(rec),
    };
    log.info(
      { ...ctx, visibility: rec.visibility, sml: result.sml, directory: result.directory },
      'peppol participant published',
    );
    return result;
  }

  async function unregister(input: StepInput): Promise<PeppolStepResult> {
    const records = (await entryParticipants(db, input.workspaceId, input.entryId)).filter((r) => r.enabled);
    for (const r of records) await unpublish(r);
    log.info(
      { jobId: input.jobId, entryId: input.entryId, participantIds: records.map((r) => r.participantId) },
      'peppol participant unregistered',
    );
    return {
      ...(records[0] && { participantId: records[0].participantId }),
      enabled: false,
      sml: false,
      directory: false,
    };
  }

  return { 'peppol.register': register, 'peppol.unregister': unregister };
}

export type PeppolActivities = ReturnType<typeof peppolActivities>;
