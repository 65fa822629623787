// `silo.state`: the only writer of a party's state. Its effect is one statement, which also records its journal.
import { ApplicationFailure } from '@temporalio/activity';
import { stateEffect } from '../platform/store/entries';
import { PARTY_STATES, isPartyState, type PartyState } from '../contract/job';
import { type StepInput } from '../contract/journal';
import type { ActivityDeps } from './deps';

export function partyState({ log }: ActivityDeps) {
  return function partyStateStep(input: StepInput) {
    const state = input.config.state;
    if (!isPartyState(state)) {
      throw ApplicationFailure.nonRetryable(
        `silo.state needs config.state, one of ${PARTY_STATES.join(', ')}; got ${JSON.stringify(state)}`,
        'invalid-config',
      );
    }
    return {
      effect: stateEffect({
        entryId: input.entryId,
        state,
        jobId: input.jobId,
        stepId: input.stepId,
        faults: input.faults,
      }),
      done(changed: unknown): { partyState: PartyState; changed: boolean } {
        log.info(
          { jobId: input.jobId, entryId: input.entryId, stepId: input.stepId, state, changed },
          'party state set',
        );
        return { partyState: state, changed: changed === true };
      },
    };
  };
}
