// `silo.state`: the only writer of a party's state.
import { ApplicationFailure } from '@temporalio/activity';
import { recordState } from '../store/entries';
import { PARTY_STATES, type StepInput } from '../workflows/types';
import type { ActivityDeps } from './deps';
import type { Commit } from './journalled';

export function siloState({ db, log }: ActivityDeps) {
  return async function siloStateActivity(input: StepInput, commit: Commit = (write) => db.tx(write)): Promise<{ state: string; changed: boolean }> {
    const state = input.config.state;
    if (typeof state !== 'string' || !(PARTY_STATES as readonly string[]).includes(state)) {
      throw ApplicationFailure.nonRetryable(
        `silo.state needs config.state, one of ${PARTY_STATES.join(', ')}; got ${JSON.stringify(state)}`,
        'invalid-config',
      );
    }
    const { changed } = await commit((q) => recordState(q, { entryId: input.entryId, state, jobId: input.jobId, stepId: input.stepId, faults: input.faults }));
    log.info({ jobId: input.jobId, entryId: input.entryId, stepId: input.stepId, state, changed }, 'party state set');
    return { state, changed };
  };
}
