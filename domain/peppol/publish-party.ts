// The use case of `peppol.register`: publish the party's participants in our SMP, at the SML and in the Peppol
// Directory, as its config asks, and withdraw those of addresses it no longer has (run-publication.ts runs the plan).
import type { StepInput } from '../../contract/journal';
import type { EntryFacts } from '../../platform/store/entry-facts';
import type { Commit } from '../jobs/step-commit';
import { sirenAndMandateIn } from '../party/entry-siren';
import { entrustedAddressesIn } from '../party/entrusted-addresses';
import { directoryCardDigest } from './directory-card';
import type { PeppolContext } from './peppol-context';
import { wantsDirectory, wantsSml, type PublicationConfig } from './publication-plan';
import { publicationRun } from './run-publication';
import { withdrawParty, type PeppolStepResult } from './withdraw-party';

/**
 * The participants of the party's invoicing addresses, each within what its signed mandate entrusts, and of the
 * directory lines the entry holds besides (addresses taken over from another platform).
 */
function participantsOf(ctx: PeppolContext, facts: EntryFacts, siren: string, signed: unknown): string[] {
  // The addresses the directory step gave lines to, as it wrote them: a change of the meta since (while the job
  // waited for their start day) waits for the next address update, so Peppol never publishes what the directory
  // does not hold. Without a directory step (a workspace's definition), the addresses stated, within the mandate.
  const held = facts.lines.map((l) => l.address);
  const addresses = held.length > 0 ? held : entrustedAddressesIn(facts.metas, siren, signed).wanted.map((a) => a.id);
  return addresses.map(ctx.participantIdOf);
}

/** `facts`: what the step read of its entry with its start (platform/store/entry-facts.ts). */
export async function publishParty(
  ctx: PeppolContext,
  step: { input: StepInput; commit: Commit; facts: EntryFacts; config: PublicationConfig },
): Promise<PeppolStepResult> {
  const { input, commit, facts, config } = step;
  if (config.disable) return withdrawParty(ctx, input, 'peppol participants disabled');
  // Publishing makes the company reachable on Peppol: only with its signed, approved mandate.
  const { siren, mandate } = sirenAndMandateIn(facts, input.entryId, 'peppol.register');
  const participantIds = participantsOf(ctx, facts, siren, mandate.invoicingAddresses);
  // Participants of addresses the party no longer has (an address update) leave Peppol first.
  const run = publicationRun(ctx);
  const card = directoryCardDigest(mandate.facts, facts.taxId);
  const { withdrawn, actions } = await run.plan(input, participantIds, { publication: config, card });
  await run.run(input, actions, commit);
  const ids = { jobId: input.jobId, entryId: input.entryId };
  if (withdrawn.length > 0)
    ctx.log.info({ ...ids, participantIds: withdrawn }, 'peppol participants of ended addresses unpublished');
  const result = {
    participantIds,
    visibility: config.visibility,
    enabled: true,
    sml: wantsSml(config.visibility),
    directory: wantsDirectory(config),
  };
  const { visibility, sml, directory } = result;
  ctx.log.info({ ...ids, participantIds, visibility, sml, directory }, 'peppol participants published');
  return result;
}
