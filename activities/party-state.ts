// `silo.state`: the only writer of a party's state. Its effect is one statement, which also records its journal and
// reads the state the step's definition configures.
import { configuredStateEffect } from '../platform/store/entry-states';
import { type PartyState } from '../contract/job';
import { type StepInput } from '../contract/journal';
import type { ActivityDeps } from './deps';

export function partyState({ log }: ActivityDeps) {
  return function partyStateStep(input: Omit<StepInput, 'config'>) {
    const { jobId, entryId, stepId, faults } = input;
    return {
      effect: configuredStateEffect({ entryId, jobId, stepId, faults }),
      done(result: unknown): { partyState: PartyState; changed: boolean } {
        const [changed, state] = result as [boolean, PartyState];
        log.info({ jobId, entryId, stepId, state, changed }, 'party state set');
        return { partyState: state, changed };
      },
    };
  };
}
