// `gov-fr.directory.register` / `.update` / `.disable`: the party's lines in the PPF Annuaire, one per invoicing
// address it entrusts (domain/party/invoicing-addresses.ts). Each attempt reads the SIREN's lines in force and to
// come, asks the plan (domain/directory/plan.ts) what to end, mask and create, carries it out, reads every line back
// (directory-writes.ts) and records it. A retried or re-run step plans again from what the directory holds, so it
// never writes twice, and finishes the take-over its first plan began (its targets are kept before writing); a write
// the directory refuses for good is planned again (an attempt beside this one may have done it), and if still
// refused, the SIREN's uncovered days go back to the fictive platform before the step fails. `cover` does only that,
// for the job's rescue.
import { ApplicationFailure } from '@temporalio/activity';
import { AnnuaireError, today, type AnnuaireClient } from '../integrations/annuaire/client';
import { addDays, type Addressing, type Line } from '../domain/directory/lines';
import { planDirectory, type DirectoryPlan, type DirectoryRequest } from '../domain/directory/plan';
import { FORMER_MATRICULE_META, formerMatriculeIn } from '../domain/party/take-over';
import {
  effectiveDay,
  entrusts,
  INVOICING_ADDRESSES_META,
  type InvoicingAddress,
} from '../domain/party/invoicing-addresses';
import { readEntryFacts, type EntryFacts } from '../platform/store/entry-facts';
import {
  forgetDirectoryLine,
  forgetDirectoryLines,
  holdDirectoryLine,
  recordDirectoryLine,
  releaseDirectoryLine,
} from '../platform/store/directory-holdings';
import { keepPlannedTargets } from '../platform/store/directory-step-targets';
import type { StepResult } from '../contract/activities';
import type { StepInput } from '../contract/journal';
import type { ActivityDeps } from './deps';
import type { Commit } from './journalled';
import { entrySiren, sirenIn } from './entry-siren';
import { entrustedAddressesIn } from './entrusted-addresses';
import { directoryWriter, lineOf, type ReadBack } from './directory-writes';
import { remoteCall } from './remote-failure';

/** One invoicing address's line on our matricule. */
export interface AddressLine {
  address: string;
  idInstance: number;
  created: boolean;
}

export interface RegisterResult extends StepResult {
  /** One per invoicing address, in the order the party states them, then those taken over besides. */
  lines: AddressLine[];
  /** Addresses whose line of ours ended (an update: the party no longer states them). */
  ended?: string[];
  /** Matricule of the PA whose lines we ended (take-over). */
  takenOverFrom?: string;
  /** YYYY-MM-DD, when later than today: the lines start then. */
  takesEffectOn?: string;
  /** The workflow starts the next step (Peppol publication) no earlier (workflows/job/start-days.ts). */
  nextStepNotBefore?: string;
}

export interface DisableResult extends StepResult {
  ended: number[];
  /** The 9998 line put back, when one was needed (nobody took the SIREN over). */
  restoredIdInstance?: number;
  /** The platforms receiving for the company now: it moved to them. */
  takenOverBy?: string[];
}

/** The metas the directory steps read with their start (entry-facts.ts). */
export const DIRECTORY_FACTS = [INVOICING_ADDRESSES_META, FORMER_MATRICULE_META] as const;

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

  const tx: Commit = (write) => db.tx(write);
  const register = (input: StepInput, commit = tx, facts?: EntryFacts) => holdLines(input, commit, 'register', facts);
  const update = (input: StepInput, commit = tx, facts?: EntryFacts) => holdLines(input, commit, 'update', facts);

  /**
   * Our lines for the addresses the party states; in an update, ours at the addresses it no longer states end.
   * `given`: the facts read with the step's start (DIRECTORY_FACTS), read here when the step is called on its own.
   */
  async function holdLines(
    input: StepInput,
    commit: Commit,
    mode: 'register' | 'update',
    given?: EntryFacts,
  ): Promise<RegisterResult> {
    const facts = given ?? (await readEntryFacts(db, input, DIRECTORY_FACTS));
    const siren = sirenIn(facts, input.entryId);
    const ids = { jobId: input.jobId, entryId: input.entryId, stepId: input.stepId, siren };
    // We act on the company's behalf only with its signed, approved mandate, and for the addresses it entrusts.
    const mandate = facts.mandate;
    if (!mandate) {
      throw ApplicationFailure.nonRetryable(
        'the party has no signed and approved mandate: the directory step must follow gov-fr.agreement.sign and the approval wait',
        'mandate-not-approved',
      );
    }
    const { wanted, scope, start } = entrustedAddressesIn(facts.metas, siren, mandate.invoicingAddresses);
    const holder = facts.holder;
    if (holder && holder !== input.entryId)
      throw ApplicationFailure.nonRetryable(`0225:${siren} is already registered`, 'already-registered');
    if (mode === 'update' && holder !== input.entryId)
      throw ApplicationFailure.nonRetryable(
        `entry ${input.entryId} holds no directory line: register it before updating its addresses`,
        'not-registered',
      );
    const held = mode === 'update' ? facts.lines : [];
    // An earlier attempt's take-over, finished as planned (the lines it handed over no longer show).
    const earlier = facts.planned;
    const request: DirectoryRequest = {
      kind: 'hold',
      siren,
      // The switch day: today, or the later day the party set.
      on: effectiveDay({ start }, today()),
      wanted: [...wanted.map(addressingOf), ...(earlier?.targets ?? [])],
      entrusted: (a) => entrusts(scope, { id: a.address, siren }),
      // The take-over consent is the one in the signed mandate, not whatever the meta says now.
      ...(mandate.formerMatricule && { consent: mandate.formerMatricule }),
      consentSetAfterSigning: !mandate.formerMatricule && !!formerMatriculeIn(facts.metas[FORMER_MATRICULE_META]),
      dropped: held.map((h) => h.address),
    };
    const stated = new Map(wanted.map((a) => [a.id.toLowerCase(), a]));
    const { plan, lines } = await carryOut(request, stated, ids, (p) =>
      keepPlannedTargets(db, input.jobId, input.stepId, {
        targets: p.targets,
        ...(p.takenOverFrom[0] && { takenOverFrom: p.takenOverFrom[0] }),
      }),
    );
    const takenOverFrom = plan.takenOverFrom[0] ?? earlier?.takenOverFrom;
    const ours = (t: Addressing) => lines.find((l) => l.platform === us && sameId(l.address, t.address))!;
    const result: RegisterResult = {
      lines: plan.targets.map((t) => ({
        address: t.address,
        idInstance: ours(t).idInstance,
        created: ours(t).created,
      })),
      ...(plan.released.length > 0 && { ended: plan.released }),
      ...(takenOverFrom && { takenOverFrom }),
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

  async function disable(input: StepInput, commit = tx, given?: EntryFacts): Promise<DisableResult> {
    const facts = given ?? (await readEntryFacts(db, input, DIRECTORY_FACTS));
    const siren = sirenIn(facts, input.entryId);
    const ids = { jobId: input.jobId, entryId: input.entryId, stepId: input.stepId, siren };
    // Another entry's registration of the same SIREN is not this entry's to end.
    const holder = facts.holder;
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
   * Reads, plans, writes, reads back. A write refused for good is planned again from what the directory then holds
   * (an attempt running beside this one, or another platform, changed it meanwhile); after ROUNDS refusals, the
   * SIREN's uncovered days go back to the fictive platform and the refusal ends the step.
   */
  async function carryOut(
    request: DirectoryRequest,
    stated: Map<string, InvoicingAddress>,
    ids: Record<string, string>,
    beforeWriting?: (plan: DirectoryPlan) => Promise<void>,
  ): Promise<{ plan: DirectoryPlan; lines: ReadBack[] }> {
    return remoteCall(async () => {
      for (let round = 1; ; round++) {
        const plan = await planNow(request, ids);
        if (beforeWriting && plan.writes.length > 0) await beforeWriting(plan);
        try {
          const created = await writer.apply(plan.writes, stated, ids);
          return { plan, lines: await writer.readBack(plan, created) };
        } catch (err) {
          if (!(err instanceof AnnuaireError) || err.retryable) throw err;
          if (round < ROUNDS) {
            log.warn(
              { ...ids, status: err.status, err: err.message, round },
              'directory write refused: planning again',
            );
            continue;
          }
          const restored = await coverGaps(request.siren, ids);
          log.warn({ ...ids, status: err.status, restored }, 'directory write refused for good');
          throw err;
        }
      }
    });
  }

  /**
   * The plan over the SIREN's lines from yesterday on (a line ended today by an earlier attempt counts), masked lines
   * aside (never in force, whatever a search returns). A refusal writes nothing of ours; the SIREN's days left
   * without a line (by an earlier attempt that the directory's changes since made impossible to finish) go back to
   * the fictive platform first, and the message says so.
   */
  async function planNow(request: DirectoryRequest, ids: Record<string, string>): Promise<DirectoryPlan> {
    const day = today();
    const lines = await linesOf(request.siren, day);
    const outcome = planDirectory({ us, today: day, lines, request });
    if (!('refused' in outcome)) return outcome.plan;
    const restored = await coverGaps(request.siren, ids, lines);
    const note =
      restored > 0 ? ` (the SIREN's days left without a line by an earlier attempt were put back on 9998)` : '';
    throw ApplicationFailure.nonRetryable(outcome.refused.message + note, outcome.refused.code);
  }

  const linesOf = async (siren: string, day: string) =>
    (await client.searchLines({ siren, dateDebutRecherche: addDays(day, -1) })).filter((l) => !l.masked).map(lineOf);

  /** The SIREN's days without a line, from today on, go to the fictive platform; returns how many lines that took. */
  async function coverGaps(siren: string, ids: Record<string, string>, known?: Line[]): Promise<number> {
    const day = today();
    const outcome = planDirectory({
      us,
      today: day,
      lines: known ?? (await linesOf(siren, day)),
      request: { kind: 'cover', siren, on: day },
    });
    if (!('plan' in outcome) || outcome.plan.writes.length === 0) return 0;
    await writer.apply(outcome.plan.writes, new Map(), ids);
    log.warn({ ...ids, restored: outcome.plan.writes.length }, "directory: the SIREN's uncovered days back on 9998");
    return outcome.plan.writes.length;
  }

  /**
   * Run by the job's rescue after a directory step failed (workflows/job/rescue.ts): a handover it cut short (the 9998
   * line ended, ours never created, its retries spent) must not leave the SIREN without a line.
   */
  async function cover(input: Pick<StepInput, 'jobId' | 'workspaceId' | 'entryId'>): Promise<{ restored: number }> {
    const siren = await entrySiren(db, input);
    const ids = { jobId: input.jobId, entryId: input.entryId, siren };
    return { restored: await remoteCall(() => coverGaps(siren, ids)) };
  }

  return { register, disable, update, cover };
}

/** Write refusals met before the step gives up: each is planned again from what the directory holds then. */
const ROUNDS = 4;

const sameId = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
