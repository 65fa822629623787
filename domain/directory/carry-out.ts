// What the directory use cases share: read the SIREN's lines, plan (plan.ts), write, read back (annuaire-writes.ts).
// A write the Annuaire refuses for good is planned again from what it then holds (an attempt running beside this
// one, or another platform, changed it meanwhile); after ROUNDS refusals, the SIREN's uncovered days go back to the
// fictive platform and the refusal ends the step.
import type { Logger } from 'pino';
import type { Db } from '../../platform/store/db';
import { StepRefused } from '../errors';
import { refusedForGood } from '../remote-failure';
import type { InvoicingAddress } from '../party/invoicing-addresses';
import type { Annuaire } from './annuaire';
import { annuaireWriter, lineOf, type ReadBack } from './annuaire-writes';
import { addDays, today, type Line } from './lines';
import { planDirectory, type DirectoryPlan, type DirectoryRequest } from './plan';

/** What the directory use cases act with: the store, the Annuaire (built once by the worker), our matricule. */
export interface DirectoryContext {
  db: Db;
  log: Logger;
  annuaire: Annuaire;
  /** Our matricule (PA_MATRICULE). */
  us: string;
}

/** Write refusals met before the step gives up: each is planned again from what the directory holds then. */
const ROUNDS = 4;

export function directoryWork({ log, annuaire, us }: DirectoryContext) {
  const writer = annuaireWriter(annuaire, log);

  /** Reads, plans, writes, reads back; `beforeWriting` keeps what a plan with writes is about to do. */
  async function carryOut(
    request: DirectoryRequest,
    stated: Map<string, InvoicingAddress>,
    ids: Record<string, string>,
    beforeWriting?: (plan: DirectoryPlan) => Promise<void>,
  ): Promise<{ plan: DirectoryPlan; lines: ReadBack[] }> {
    for (let round = 1; ; round++) {
      const plan = await planNow(request, ids);
      if (beforeWriting && plan.writes.length > 0) await beforeWriting(plan);
      try {
        const created = await writer.apply(plan.writes, stated, ids);
        return { plan, lines: await writer.readBack(plan, created) };
      } catch (err) {
        if (!refusedForGood(err) || err.system !== 'annuaire') throw err;
        if (round < ROUNDS) {
          log.warn({ ...ids, status: err.status, err: err.message, round }, 'directory write refused: planning again');
          continue;
        }
        const restored = await coverGaps(request.siren, ids);
        log.warn({ ...ids, status: err.status, restored }, 'directory write refused for good');
        throw err;
      }
    }
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
    throw new StepRefused(outcome.refused.code, outcome.refused.message + note);
  }

  const linesOf = async (siren: string, day: string) =>
    (await annuaire.searchLines({ siren, dateDebutRecherche: addDays(day, -1) })).filter((l) => !l.masked).map(lineOf);

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

  return { carryOut, coverGaps };
}

export const sameId = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
