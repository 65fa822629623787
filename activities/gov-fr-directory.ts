// `gov-fr.directory.register` / `.update` / `.disable`: the party's lines in the PPF Annuaire, one per invoicing
// address it entrusts (domain/party/invoicing-addresses.ts). Each attempt reads the SIREN's lines in force and to
// come, asks the plan (domain/directory/plan.ts) what to end, mask and create, carries it out, reads every line back
// (directory-writes.ts) and records it. A retried or re-run step plans again from what the directory holds, so it
// never writes twice; a write the directory refuses for good is planned once more (an attempt beside this one may have
// done it), and if still refused, the SIREN's uncovered days go back to the fictive platform before the step fails.
import { ApplicationFailure } from '@temporalio/activity';
import { AnnuaireError, today, type AnnuaireClient } from '../integrations/annuaire/client';
import { addDays, type Addressing } from '../domain/directory/lines';
import { planDirectory, type DirectoryPlan, type DirectoryRequest } from '../domain/directory/plan';
import { formerMatriculeOf } from '../domain/party/take-over';
import { effectiveDay, entrusts, type InvoicingAddress } from '../domain/party/invoicing-addresses';
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
import { entrustedAddresses } from './entrusted-addresses';
import { directoryWriter, lineOf, type ReadBack } from './directory-writes';
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

export interface DisableResult {
  ended: number[];
  /** The 9998 line put back, when one was needed (nobody took the SIREN over). */
  restoredIdInstance?: number;
  /** The platforms receiving for the company now: it moved to them. */
  takenOverBy?: string[];
}

const addressingOf = (a: InvoicingAddress): Addressing => ({
  address: a.id,
  siren: a.siren,
  ...(a.siret && { siret: a.siret }),
  ...(a.routingCode && { routingId: a.routingCode.id }),
  ...(a.suffix && { suffix: a.suffix }),
});

export function directoryActivities(deps: ActivityDeps, client: AnnuaireClient) {
  const { db, log, config } = deps;
  const us = config.PA_MATRICULE;
  const writer = directoryWriter(client, log);

  const register = (input: StepInput, commit: Commit = (write) => db.tx(write)) => holdLines(input, commit, 'register');
  const update = (input: StepInput, commit: Commit = (write) => db.tx(write)) => holdLines(input, commit, 'update');

  /** Our lines for the addresses the party states; in an update, ours at the addresses it no longer states end. */
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
    const request: DirectoryRequest = {
      kind: 'hold',
      siren,
      // The switch day: today, or the later day the party set.
      on: effectiveDay({ start }, today()),
      wanted: wanted.map(addressingOf),
      entrusted: (a) => entrusts(scope, { id: a.address, siren }),
      // The take-over consent is the one in the signed mandate, not whatever the meta says now.
      ...(mandate.formerMatricule && { consent: mandate.formerMatricule }),
      consentSetAfterSigning: !mandate.formerMatricule && !!(await formerMatriculeOf(db, input.entryId)),
      dropped: held.map((h) => h.address),
    };
    const stated = new Map(wanted.map((a) => [a.id.toLowerCase(), a]));
    const { plan, lines } = await carryOut(request, stated, ids);
    const ours = (t: Addressing) => lines.find((l) => l.platform === us && sameId(l.address, t.address))!;
    const result: RegisterResult = {
      lines: plan.targets.map((t) => ({
        address: t.address,
        idInstance: ours(t).idInstance,
        created: ours(t).created,
      })),
      ...(plan.released.length > 0 && { ended: plan.released }),
      ...(plan.takenOverFrom[0] && { takenOverFrom: plan.takenOverFrom[0] }),
      ...(plan.on > today() && { takesEffectOn: plan.on, nextStepNotBefore: `${plan.on}T00:00:00.000Z` }),
    };
    const later =
      result.takesEffectOn && `the lines take effect on ${result.takesEffectOn}: the next step waits until then`;
    const readBackAt = new Date();
    await commit(
      async (q) => {
        const sirenLine = result.lines.find((l) => l.address === siren) ?? result.lines[0]!;
        if (!(await holdDirectoryLine(q, siren, input.entryId, sirenLine.idInstance))) {
          throw ApplicationFailure.nonRetryable(`0225:${siren} is already registered`, 'already-registered');
        }
        for (const l of result.lines) {
          const startsOn = ours({ address: l.address, siren }).start;
          await recordDirectoryLine(q, { siren, entryId: input.entryId, ...l, startsOn, readBackAt });
        }
        for (const address of result.ended ?? []) await forgetDirectoryLine(q, input.entryId, address);
      },
      later ? { message: later } : undefined,
    );
    return result;
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
    const { plan, lines } = await carryOut({ kind: 'release', siren, on: today() }, new Map(), ids);
    const restored = lines.find((l) => l.created && l.platform !== us && sameId(l.address, siren));
    const result: DisableResult = {
      ended: plan.writes.flatMap((w) => (w.kind !== 'create' && w.line.platform === us ? [w.line.idInstance] : [])),
      ...(restored && { restoredIdInstance: restored.idInstance }),
      ...(plan.receivingAfter.length > 0 && { takenOverBy: plan.receivingAfter }),
    };
    await commit(async (q) => {
      await releaseDirectoryLine(q, siren, input.entryId);
      await forgetDirectoryLines(q, input.entryId);
    });
    return result;
  }

  /**
   * Reads, plans, writes, reads back. A write refused for good is planned once more from what the directory then
   * holds; refused again, the SIREN's uncovered days go back to the fictive platform and the refusal ends the step.
   */
  async function carryOut(
    request: DirectoryRequest,
    stated: Map<string, InvoicingAddress>,
    ids: Record<string, string>,
  ): Promise<{ plan: DirectoryPlan; lines: ReadBack[] }> {
    return remoteCall(async () => {
      for (let round = 0; ; round++) {
        const plan = await planNow(request, ids);
        try {
          const created = await writer.apply(plan.writes, stated, ids);
          return { plan, lines: await writer.readBack(plan, created) };
        } catch (err) {
          if (!(err instanceof AnnuaireError) || err.retryable) throw err;
          if (round === 0) {
            log.warn({ ...ids, status: err.status, err: err.message }, 'directory write refused: planning again');
            continue;
          }
          const repair = await planNow({ kind: 'cover', siren: request.siren, on: today() }, ids);
          await writer.apply(repair.writes, new Map(), ids);
          log.warn({ ...ids, status: err.status, restored: repair.writes.length }, 'directory write refused for good');
          throw err;
        }
      }
    });
  }

  /**
   * The plan over the SIREN's lines from yesterday on (a line ended today by an earlier attempt counts). A refusal
   * writes nothing, but for the SIREN's days left without a line (by an earlier attempt that the directory's changes
   * since have made impossible to finish): those go back to the fictive platform first.
   */
  async function planNow(request: DirectoryRequest, ids: Record<string, string>): Promise<DirectoryPlan> {
    const day = today();
    const lines = (await client.searchLines({ siren: request.siren, dateDebutRecherche: addDays(day, -1) })).map(
      lineOf,
    );
    const outcome = planDirectory({ us, today: day, lines, request });
    if (!('refused' in outcome)) return outcome.plan;
    const cover = planDirectory({ us, today: day, lines, request: { kind: 'cover', siren: request.siren, on: day } });
    if ('plan' in cover && cover.plan.writes.length > 0) {
      await writer.apply(cover.plan.writes, new Map(), ids);
      log.warn({ ...ids, restored: cover.plan.writes.length }, 'directory step refused: uncovered days back on 9998');
    }
    throw ApplicationFailure.nonRetryable(outcome.refused.message, outcome.refused.code);
  }

  return {
    'gov-fr.directory.register': register,
    'gov-fr.directory.disable': disable,
    'gov-fr.directory.update': update,
  };
}

const sameId = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
