// `gov-fr.directory.register` / `.update` / `.disable`, and the rescue's cover: each reads its input (the entry's
// facts, read with the step's start or here), runs its use case in domain/directory/ over the Annuaire client the
// worker built once, and maps its failures to Temporal's (remote-failure.ts).
import type { Annuaire } from '../domain/directory/annuaire';
import type { DirectoryContext } from '../domain/directory/carry-out';
import { coverSiren } from '../domain/directory/cover-siren';
import { registerParty } from '../domain/directory/register-party';
import { releaseParty } from '../domain/directory/release-party';
import type { Commit } from '../domain/jobs/step-commit';
import { INVOICING_ADDRESSES_META } from '../domain/party/invoicing-addresses';
import { FORMER_MATRICULE_META } from '../domain/party/take-over';
import { readEntryFacts, type EntryFacts } from '../platform/store/entry-facts';
import type { StepInput } from '../contract/journal';
import type { ActivityDeps } from './deps';
import { withTemporalFailures } from './remote-failure';

/** The metas the directory steps read with their start (entry-facts.ts). */
export const DIRECTORY_FACTS = [INVOICING_ADDRESSES_META, FORMER_MATRICULE_META] as const;

export function directoryActivities({ db, log, config }: ActivityDeps, annuaire: Annuaire) {
  const ctx: DirectoryContext = { db, log, annuaire, us: config.PA_MATRICULE };
  const tx: Commit = (write) => db.tx(write);
  /** `given`: the facts read with the step's start; read here when the step is called on its own. */
  const factsOf = async (input: StepInput, given?: EntryFacts) =>
    given ?? (await readEntryFacts(db, input, DIRECTORY_FACTS));

  const register = (input: StepInput, commit = tx, given?: EntryFacts) =>
    withTemporalFailures(async () =>
      registerParty(ctx, { input, commit, facts: await factsOf(input, given), mode: 'register' }),
    );
  const update = (input: StepInput, commit = tx, given?: EntryFacts) =>
    withTemporalFailures(async () =>
      registerParty(ctx, { input, commit, facts: await factsOf(input, given), mode: 'update' }),
    );
  const disable = (input: StepInput, commit = tx, given?: EntryFacts) =>
    withTemporalFailures(async () => releaseParty(ctx, { input, commit, facts: await factsOf(input, given) }));
  const cover = (input: Pick<StepInput, 'jobId' | 'workspaceId' | 'entryId'>) =>
    withTemporalFailures(() => coverSiren(ctx, input));

  return { register, disable, update, cover };
}
