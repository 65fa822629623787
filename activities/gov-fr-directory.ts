// `gov-fr.directory.register` / `gov-fr.directory.disable`: the party's SIREN line in the PPF Annuaire.
// Both look before they write, so a retried or re-run step never creates a second line. The switch date is
// today: lines handed over end on it and the new line starts on it (DSE rule, periods do not overlap).
import { ApplicationFailure } from '@temporalio/activity';
import {
  AnnuaireError,
  DEFAULT_MATRICULE,
  isSirenLevel,
  today,
  type AnnuaireClient,
  type AnnuaireLine,
} from '../integrations/annuaire/client';
import { approvedMandate } from '../platform/store/agreements';
import { directoryHolder, holdDirectoryLine, releaseDirectoryLine } from '../platform/store/directory-holdings';
import type { StepInput } from '../workflows/types';
import type { ActivityDeps } from './deps';
import type { Commit } from './journalled';
import { entrySiren } from './entry-siren';
import { FORMER_MATRICULE_META, formerMatriculeOf } from '../domain/party/take-over';

import { remoteCall } from './remote-failure';

export interface RegisterResult {
  idInstance: number;
  created: boolean;
  /** Matricule of the PA whose lines we ended (take-over). */
  takenOverFrom?: string;
}

export interface DisableResult {
  ended: number[];
  /** The 9998 line put back, when one was needed. */
  restoredIdInstance?: number;
}

export function directoryActivities(deps: ActivityDeps, client: AnnuaireClient) {
  const { db, log, config } = deps;
  const us = config.PA_MATRICULE;

  async function register(input: StepInput, commit: Commit = (write) => db.tx(write)): Promise<RegisterResult> {
    const siren = await entrySiren(db, input);
    const ids = { jobId: input.jobId, entryId: input.entryId, stepId: input.stepId, siren };
    // We act on the company's behalf only with its signed, approved mandate.
    const mandate = await approvedMandate(db, input.entryId);
    if (!mandate) {
      throw ApplicationFailure.nonRetryable(
        'the party has no signed and approved mandate: the directory step must follow gov-fr.agreement.sign and the approval wait',
        'mandate-not-approved',
      );
    }
    const holder = await directoryHolder(db, siren);
    if (holder && holder !== input.entryId)
      throw ApplicationFailure.nonRetryable(`0225:${siren} is already registered`, 'already-registered');
    const ourLine = (lines: AnnuaireLine[]) => lines.find((l) => l.matriculePlateforme === us && isSirenLevel(l));
    const result = await remoteCall(async () => {
      const day = today();
      const inForce = await client.searchLines({ siren, dateObservation: day });
      const mine = ourLine(inForce);
      if (mine) {
        log.info({ ...ids, idInstance: mine.idInstance }, 'directory line already ours');
        return { idInstance: mine.idInstance, created: false };
      }
      const foreign = inForce.filter(
        (l) => l.matriculePlateforme !== us && l.matriculePlateforme !== DEFAULT_MATRICULE,
      );
      const holders = [...new Set(foreign.map((l) => l.matriculePlateforme))];
      if (holders.length > 0) await requireConsent(input.entryId, siren, holders, mandate.formerMatricule);
      const handedOver = [
        ...foreign,
        ...inForce.filter((l) => l.matriculePlateforme === DEFAULT_MATRICULE && isSirenLevel(l)),
      ];
      for (const l of handedOver) await client.endLine(l.idInstance, day);
      const created = await client
        .createLine({ siren, matriculePlateforme: us, dateDebutEffet: day })
        .catch(async (err) => {
          // Refused because our line is there after all: created by an earlier attempt whose answer was lost (the PPF
          // carried it out after our timeout) or by an attempt running beside this one. Then the step is done.
          const since =
            err instanceof AnnuaireError && !err.retryable
              ? ourLine(await client.searchLines({ siren, dateObservation: day }))
              : undefined;
          if (since) {
            log.info(
              { ...ids, idInstance: since.idInstance, status: err.status },
              'directory line refused as already there: ours, created by another attempt',
            );
            return { ...since, existing: true as const };
          }
          // Refused for good: the SIREN must not stay without a line, so unless another still covers it, it goes back
          // to the fictive platform (as on disable) before the refusal ends the step. (On a retry after a transient
          // failure the lines were ended by the earlier attempt: nothing is in force, and the same holds.)
          const stillCovered = inForce.some((l) => !handedOver.includes(l) && isSirenLevel(l));
          if (err instanceof AnnuaireError && !err.retryable && !stillCovered) {
            try {
              const restored = await client.createLine({
                siren,
                matriculePlateforme: DEFAULT_MATRICULE,
                dateDebutEffet: day,
              });
              log.warn(
                { ...ids, status: err.status, restoredIdInstance: restored.idInstance },
                'directory line refused: the SIREN is back on the fictive platform',
              );
            } catch (restoreErr) {
              if (restoreErr instanceof AnnuaireError && restoreErr.retryable) throw restoreErr; // the retry tries both again
              log.error(
                { ...ids, status: err.status, err: restoreErr },
                'directory line refused, and the fictive platform line could not be restored',
              );
            }
          }
          throw err;
        });
      const fresh = !('existing' in created);
      if (fresh)
        log.info(
          {
            ...ids,
            matricule: us,
            idInstance: created.idInstance,
            ended: idsOf(handedOver),
            takenOverFrom: holders[0],
          },
          'directory line created',
        );
      return {
        idInstance: created.idInstance,
        created: fresh,
        ...(holders[0] && { takenOverFrom: holders[0] }),
      } as RegisterResult;
    });
    await commit(async (q) => {
      if (!(await holdDirectoryLine(q, siren, input.entryId, result.idInstance))) {
        throw ApplicationFailure.nonRetryable(`0225:${siren} is already registered`, 'already-registered');
      }
    });
    return result;
  }

  /** The take-over consent is the one in the signed mandate, not whatever the meta says now. */
  async function requireConsent(entryId: string, siren: string, holders: string[], named: string | undefined) {
    const held = `SIREN ${siren} is held in the Annuaire by platform ${holders.join(', ')}`;
    if (!named && (await formerMatriculeOf(db, entryId))) {
      throw ApplicationFailure.nonRetryable(
        `${held}: the signed mandate carries no take-over consent (${FORMER_MATRICULE_META} was set after signing): run the registration again to sign the new mandate`,
        'takeover-consent-missing',
      );
    }
    if (!named) {
      throw ApplicationFailure.nonRetryable(
        `${held}: set the meta key ${FORMER_MATRICULE_META} to that platform's matricule (with the party's consent to the take-over) and run the registration again`,
        'takeover-identifier-missing',
      );
    }
    if (holders.length > 1 || holders[0] !== named) {
      throw ApplicationFailure.nonRetryable(
        `${held}, but the mandate's take-over consent (${FORMER_MATRICULE_META}) names platform ${named}: correct the meta key to the platform holding the line and run the registration again`,
        'takeover-identifier-mismatch',
      );
    }
  }

  async function disable(input: StepInput, commit: Commit = (write) => db.tx(write)): Promise<DisableResult> {
    const siren = await entrySiren(db, input);
    const ids = { jobId: input.jobId, entryId: input.entryId, stepId: input.stepId, siren };
    // Another entry's registration of the same SIREN is not this entry's to end.
    const holder = await directoryHolder(db, siren);
    if (holder && holder !== input.entryId) {
      log.info({ ...ids, holder }, 'directory line held by another entry: left in place');
      return { ended: [] };
    }
    const result = await remoteCall(async () => {
      const day = today();
      const inForce = await client.searchLines({ siren, dateObservation: day });
      const mine = inForce.filter((l) => l.matriculePlateforme === us);
      for (const l of mine) await client.endLine(l.idInstance, day);
      // Back to the fictive platform, unless another line already covers the SIREN (another PA's, or 9998's).
      const covered = inForce.some((l) => l.matriculePlateforme !== us && isSirenLevel(l));
      const restored = covered
        ? undefined
        : await client.createLine({ siren, matriculePlateforme: DEFAULT_MATRICULE, dateDebutEffet: day });
      log.info(
        { ...ids, matricule: us, ended: idsOf(mine), restoredIdInstance: restored?.idInstance },
        'directory lines ended',
      );
      return { ended: idsOf(mine), ...(restored && { restoredIdInstance: restored.idInstance }) } as DisableResult;
    });
    await commit((q) => releaseDirectoryLine(q, siren, input.entryId));
    return result;
  }

  return { 'gov-fr.directory.register': register, 'gov-fr.directory.disable': disable };
}

const idsOf = (lines: AnnuaireLine[]) => lines.map((l) => l.idInstance);
