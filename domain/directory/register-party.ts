// The use case of `gov-fr.directory.register` and `.update`: the party's lines in the PPF Annuaire, one per invoicing
// address it entrusts (domain/party/invoicing-addresses.ts). Each attempt reads the SIREN's lines in force and to
// come, asks the plan (plan.ts) what to end, mask and create, carries it out and reads every line back
// (carry-out.ts), then records it. A retried or re-run step plans again from what the directory holds, so it never
// writes twice, and finishes the take-over its first plan began (its targets are kept before writing).
import type { StepInput } from '../../contract/journal';
import type { StepResult } from '../../contract/activities';
import type { EntryFacts } from '../../platform/store/entry-facts';
import { forgetDirectoryLine, holdDirectoryLine, recordDirectoryLine } from '../../platform/store/directory-holdings';
import { keepPlannedTargets } from '../../platform/store/directory-step-targets';
import { StepRefused } from '../errors';
import type { Commit } from '../jobs/step-commit';
import { sirenAndMandateIn } from '../party/entry-siren';
import { entrustedAddressesIn } from '../party/entrusted-addresses';
import { effectiveDay, entrusts } from '../party/invoicing-addresses';
import { FORMER_MATRICULE_META, formerMatriculeIn } from '../party/take-over';
import { directoryWork, sameId, type DirectoryContext } from './carry-out';
import { addressingOf, today, type Addressing } from './lines';
import type { DirectoryRequest } from './plan';

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

/**
 * Our lines for the addresses the party states; in an update, ours at the addresses it no longer states end.
 * `facts`: what the step read of its entry with its start (platform/store/entry-facts.ts).
 */
export async function registerParty(
  ctx: DirectoryContext,
  step: { input: StepInput; commit: Commit; facts: EntryFacts; mode: 'register' | 'update' },
): Promise<RegisterResult> {
  const { input, commit, facts, mode } = step;
  const { siren, mandate } = sirenAndMandateIn(facts, input.entryId, 'the directory step');
  const ids = { jobId: input.jobId, entryId: input.entryId, stepId: input.stepId, siren };
  const { wanted, scope, start } = entrustedAddressesIn(facts.metas, siren, mandate.invoicingAddresses);
  const holder = facts.holder;
  if (holder && holder !== input.entryId)
    throw new StepRefused('already-registered', `0225:${siren} is already registered`);
  if (mode === 'update' && holder !== input.entryId)
    throw new StepRefused(
      'not-registered',
      `entry ${input.entryId} holds no directory line: register it before updating its addresses`,
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
  const { plan, lines } = await directoryWork(ctx).carryOut(request, stated, ids, (p) =>
    keepPlannedTargets(ctx.db, input.jobId, input.stepId, {
      targets: p.targets,
      ...(p.takenOverFrom[0] && { takenOverFrom: p.takenOverFrom[0] }),
    }),
  );
  const takenOverFrom = plan.takenOverFrom[0] ?? earlier?.takenOverFrom;
  const ours = (t: Addressing) => lines.find((l) => l.platform === ctx.us && sameId(l.address, t.address))!;
  const result: RegisterResult = {
    lines: plan.targets.map((t) => ({ address: t.address, idInstance: ours(t).idInstance, created: ours(t).created })),
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
      if (!(await holdDirectoryLine(q, siren, input.entryId, sirenLine.idInstance)))
        throw new StepRefused('already-registered', `0225:${siren} is already registered`);
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
