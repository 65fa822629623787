// Long file: its business rules move to the domain in issue 43 (activities by role), leaving the activity thin.
// `gov-fr.directory.register` / `gov-fr.directory.disable`: the party's lines in the PPF Annuaire, one per invoicing
// address it entrusts (domain/party/invoicing-addresses.ts), routing codes created first. Both look before they
// write, so a retried or re-run step never creates a second line. The switch date is today: lines handed over end on
// it and the new lines start on it (DSE rule, periods do not overlap).
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
import {
  directoryHolder,
  entryDirectoryLines,
  forgetDirectoryLine,
  forgetDirectoryLines,
  holdDirectoryLine,
  recordDirectoryLine,
  releaseDirectoryLine,
} from '../platform/store/directory-holdings';
import type { StepInput } from '../workflows/types';
import type { ActivityDeps } from './deps';
import type { Commit } from './journalled';
import { entrySiren } from './entry-siren';
import { FORMER_MATRICULE_META, formerMatriculeOf } from '../domain/party/take-over';
import { effectiveDay, entrusts, type InvoicingAddress } from '../domain/party/invoicing-addresses';
import { entrustedAddresses } from './entrusted-addresses';

import { remoteCall } from './remote-failure';

/** One invoicing address's line on our matricule. */
export interface AddressLine {
  address: string;
  idInstance: number;
  created: boolean;
}

export interface RegisterResult {
  /** One per invoicing address, in the order the party states them, then those taken over besides. */
  lines: AddressLine[];
  /** Addresses whose line of ours ended (an update: the party no longer states them). */
  ended?: string[];
  /** Matricule of the PA whose lines we ended (take-over). */
  takenOverFrom?: string;
  /** YYYY-MM-DD, when later than today: the lines start then. */
  takesEffectOn?: string;
  /** The workflow starts the next step (Peppol publication) no earlier (workflows/job/run.ts). */
  nextStepNotBefore?: string;
}

/** A line to hold: an address the party states, or one another platform held for it (its routing code exists). */
type LineTarget = Pick<InvoicingAddress, 'id' | 'siren' | 'siret' | 'suffix' | 'routingCode'> & { routingId?: string };
const routingIdOf = (t: LineTarget) => t.routingCode?.id ?? t.routingId;

/** The day before a YYYY-MM-DD day. */
const dayBefore = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

export interface DisableResult {
  ended: number[];
  /** The 9998 line put back, when one was needed (nobody took the SIREN over). */
  restoredIdInstance?: number;
  /** The platforms receiving for the company now: it moved to them. */
  takenOverBy?: string[];
}

export function directoryActivities(deps: ActivityDeps, client: AnnuaireClient) {
  const { db, log, config } = deps;
  const us = config.PA_MATRICULE;

  const register = (input: StepInput, commit: Commit = (write) => db.tx(write)) => holdLines(input, commit, 'register');
  const update = (input: StepInput, commit: Commit = (write) => db.tx(write)) => holdLines(input, commit, 'update');

  /**
   * Our lines for the addresses the party states (register), and in an update also the end of those it no longer
   * states: on the switch day, the SIREN line going back to 9998 if nobody else receives for it.
   */
  async function holdLines(input: StepInput, commit: Commit, mode: 'register' | 'update'): Promise<RegisterResult> {
    const siren = await entrySiren(db, input);
    const ids = { jobId: input.jobId, entryId: input.entryId, stepId: input.stepId, siren };
    // We act on the company's behalf only with its signed, approved mandate, and for the addresses it entrusts.
    const mandate = await approvedMandate(db, input.entryId);
    if (!mandate) {
      throw ApplicationFailure.nonRetryable(
        'the party has no signed and approved mandate: the directory step must follow gov-fr.agreement.sign and the approval wait',
        'mandate-not-approved',
      );
    }
    const { wanted, scope, start } = await entrustedAddresses(db, input.entryId, siren, mandate.invoicingAddresses);
    const holder = await directoryHolder(db, siren);
    if (holder && holder !== input.entryId)
      throw ApplicationFailure.nonRetryable(`0225:${siren} is already registered`, 'already-registered');
    if (mode === 'update' && holder !== input.entryId)
      throw ApplicationFailure.nonRetryable(
        `entry ${input.entryId} holds no directory line: register it before updating its addresses`,
        'not-registered',
      );
    const held = mode === 'update' ? await entryDirectoryLines(db, input.entryId) : [];
    // The switch day: today, or the later day the party set. Our lines start on it, and the lines we take over end on
    // it (periods [start, end) meet without a gap or an overlap).
    const day = effectiveDay({ start }, today());
    const result = await remoteCall(async () => {
      const inForce = await client.searchLines({ siren, dateObservation: day });
      // What another platform holds for the company's addresses within the mandate the day before the switch: still
      // in force, or ended on the switch day (by an earlier attempt of this step). Each becomes ours from that day.
      const takenOver = (await client.searchLines({ siren, dateObservation: dayBefore(day) })).filter(
        (l) =>
          l.matriculePlateforme !== us &&
          l.matriculePlateforme !== DEFAULT_MATRICULE &&
          (l.dateFinEffet === null || l.dateFinEffet >= day) &&
          entrusts(scope, { id: l.identifiantAdressage, siren }),
      );
      const holders = [...new Set(takenOver.map((l) => l.matriculePlateforme))];
      if (holders.length > 0) await requireConsent(input.entryId, siren, holders, mandate.formerMatricule);
      for (const l of takenOver)
        if (l.dateFinEffet === null || l.dateFinEffet > day) await client.endLine(l.idInstance, day);
      const targets: LineTarget[] = [
        ...wanted,
        ...takenOver
          .filter((l) => !wanted.some((a) => sameAddress(l, a.id)))
          .map((l) => ({
            id: l.identifiantAdressage,
            siren,
            siret: l.siret,
            routingId: l.identifiantRoutage,
            suffix: l.suffixeAdressage,
          })),
      ].filter((t, i, all) => all.findIndex((o) => o.id.toLowerCase() === t.id.toLowerCase()) === i);
      const lines: AddressLine[] = [];
      for (const target of targets) {
        // A line of ours in force already uses the routing code: no need to look for it again.
        const lineHeld = inForce.some((l) => ours(l, target.id));
        if ('routingCode' in target && target.routingCode && !lineHeld)
          await ensureRoutingCode(target as InvoicingAddress, ids);
        lines.push(await ensureLine(target, inForce, takenOver, day, ids));
      }
      if (takenOver.length > 0)
        log.info(
          { ...ids, matricule: us, ended: idsOf(takenOver), takenOverFrom: holders[0], day },
          'lines taken over',
        );
      const dropped = held.filter((h) => !targets.some((t) => t.id.toLowerCase() === h.address.toLowerCase()));
      for (const h of dropped) await endAddress(h, inForce, day, ids);
      return {
        lines,
        ...(dropped.length > 0 && { ended: dropped.map((h) => h.address) }),
        ...(holders[0] && { takenOverFrom: holders[0] }),
        ...(day > today() && { takesEffectOn: day, nextStepNotBefore: `${day}T00:00:00.000Z` }),
      };
    });
    const later =
      result.takesEffectOn && `the lines take effect on ${result.takesEffectOn}: the next step waits until then`;
    await commit(
      async (q) => {
        const sirenLine = result.lines.find((l) => l.address === siren) ?? result.lines[0]!;
        if (!(await holdDirectoryLine(q, siren, input.entryId, sirenLine.idInstance))) {
          throw ApplicationFailure.nonRetryable(`0225:${siren} is already registered`, 'already-registered');
        }
        for (const l of result.lines) await recordDirectoryLine(q, { siren, entryId: input.entryId, ...l });
        for (const address of result.ended ?? []) await forgetDirectoryLine(q, input.entryId, address);
      },
      later ? { message: later } : undefined,
    );
    return result;
  }

  const sameAddress = (l: AnnuaireLine, address: string) =>
    l.identifiantAdressage.toLowerCase() === address.toLowerCase();
  const ours = (l: AnnuaireLine, address: string) => l.matriculePlateforme === us && sameAddress(l, address);

  /** Our line at an address no longer stated ends on `day`; the SIREN's goes back to 9998 unless another covers it. */
  async function endAddress(
    h: { address: string; idInstance: number },
    inForce: AnnuaireLine[],
    day: string,
    ids: Record<string, string>,
  ): Promise<void> {
    const line = inForce.find((l) => l.idInstance === h.idInstance);
    if (line && (line.dateFinEffet === null || line.dateFinEffet > day)) await client.endLine(h.idInstance, day);
    const siren = h.address.slice(0, 9);
    const covered = inForce.some(
      (l) => l.idInstance !== h.idInstance && isSirenLevel(l) && l.matriculePlateforme !== us,
    );
    // Whether or not our line was still in force (an earlier attempt may have ended it, then died): we held it until
    // this step records otherwise, so the SIREN must not be left without a line; a 9998 line created by that attempt
    // is in force on `day` and counts as covering it.
    if (h.address === siren && !covered)
      await client.createLine({ siren, matriculePlateforme: DEFAULT_MATRICULE, dateDebutEffet: day });
    log.info(
      { ...ids, address: h.address, idInstance: h.idInstance, day },
      'directory line ended: address no longer stated',
    );
  }

  /** A routing code exists in the directory before a line uses it; one created by an earlier attempt is reused. */
  async function ensureRoutingCode(a: InvoicingAddress, ids: Record<string, string>): Promise<void> {
    const rc = a.routingCode!;
    if (await client.getRoutingCode(a.siret!, rc.id)) return;
    const code = {
      siret: a.siret!,
      identifiantRoutage: rc.id,
      libelleCodeRoutage: rc.label,
      natureEtablissement: rc.nature,
      etatAdministratif: rc.state,
      ...(rc.type && { typeIdentifiantRoutage: rc.type }),
      ...(rc.commitment_required !== undefined && { gestionEngagementJuridique: rc.commitment_required }),
    };
    try {
      const created = await client.createRoutingCode(code);
      log.info({ ...ids, address: a.id, idInstance: created.idInstance }, 'routing code created');
    } catch (err) {
      // Refused because it is there after all (an earlier attempt's answer was lost): then it is done.
      if (err instanceof AnnuaireError && !err.retryable && (await client.getRoutingCode(a.siret!, rc.id))) return;
      throw err;
    }
  }

  /** Our line for one address: the one in force, or a new one from `day` once the lines handed over are ended. */
  async function ensureLine(
    address: LineTarget,
    inForce: AnnuaireLine[],
    takenOver: AnnuaireLine[],
    day: string,
    ids: Record<string, string>,
  ): Promise<AddressLine> {
    const here = inForce.filter((l) => sameAddress(l, address.id));
    const mine = here.find((l) => ours(l, address.id));
    if (mine) {
      log.info({ ...ids, address: address.id, idInstance: mine.idInstance }, 'directory line already ours');
      return { address: address.id, idInstance: mine.idInstance, created: false };
    }
    // The fictive platform's line, at the SIREN level, is handed over too.
    const fictive = here.filter((l) => l.matriculePlateforme === DEFAULT_MATRICULE);
    for (const l of fictive) await client.endLine(l.idInstance, day);
    const line = {
      siren: address.siren,
      ...(address.siret && { siret: address.siret }),
      ...(routingIdOf(address) && { identifiantRoutage: routingIdOf(address) }),
      ...(address.suffix && { suffixeAdressage: address.suffix }),
      matriculePlateforme: us,
      dateDebutEffet: day,
    };
    try {
      const created = await client.createLine(line);
      log.info(
        { ...ids, address: address.id, matricule: us, idInstance: created.idInstance, ended: idsOf(fictive) },
        'directory line created',
      );
      return { address: address.id, idInstance: created.idInstance, created: true };
    } catch (err) {
      // Refused because our line is there after all: created by an earlier attempt whose answer was lost (the PPF
      // carried it out after our timeout) or by an attempt running beside this one. Then the address is done.
      if (!(err instanceof AnnuaireError) || err.retryable) throw err;
      const since = (await client.searchLines({ siren: address.siren, dateObservation: day })).find((l) =>
        ours(l, address.id),
      );
      if (since) {
        log.info(
          { ...ids, address: address.id, idInstance: since.idInstance, status: err.status },
          'directory line refused as already there: ours, created by another attempt',
        );
        return { address: address.id, idInstance: since.idInstance, created: false };
      }
      // Refused for good: the SIREN must not stay without a line, so unless another still covers it, it goes back
      // to the fictive platform (as on disable) before the refusal ends the step. (On a retry after a transient
      // failure the lines were ended by the earlier attempt: nothing is in force, and the same holds.)
      const handedOver = [...fictive, ...takenOver];
      const stillCovered = inForce.some((l) => !handedOver.includes(l) && isSirenLevel(l));
      if (address.id === address.siren && !stillCovered) await restoreFictiveLine(address.siren, day, err, ids);
      throw err;
    }
  }

  async function restoreFictiveLine(siren: string, day: string, err: AnnuaireError, ids: Record<string, string>) {
    try {
      const restored = await client.createLine({ siren, matriculePlateforme: DEFAULT_MATRICULE, dateDebutEffet: day });
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
      // Another platform receiving for the company now: it took the lines over (the company moved), nothing to undo.
      const takenOverBy = [
        ...new Set(
          inForce
            .filter((l) => l.matriculePlateforme !== us && l.matriculePlateforme !== DEFAULT_MATRICULE)
            .map((l) => l.matriculePlateforme),
        ),
      ];
      // Back to the fictive platform, unless another line already covers the SIREN (another PA's, or 9998's).
      const covered = inForce.some((l) => l.matriculePlateforme !== us && isSirenLevel(l));
      const restored = covered
        ? undefined
        : await client.createLine({ siren, matriculePlateforme: DEFAULT_MATRICULE, dateDebutEffet: day });
      log.info(
        { ...ids, matricule: us, ended: idsOf(mine), restoredIdInstance: restored?.idInstance, takenOverBy },
        'directory lines ended',
      );
      return {
        ended: idsOf(mine),
        ...(restored && { restoredIdInstance: restored.idInstance }),
        ...(takenOverBy.length > 0 && { takenOverBy }),
      } as DisableResult;
    });
    await commit(async (q) => {
      await releaseDirectoryLine(q, siren, input.entryId);
      await forgetDirectoryLines(q, input.entryId);
    });
    return result;
  }

  return {
    'gov-fr.directory.register': register,
    'gov-fr.directory.disable': disable,
    'gov-fr.directory.update': update,
  };
}

const idsOf = (lines: AnnuaireLine[]) => lines.map((l) => l.idInstance);
