// Providers whose implementation lands in a later issue: they fail the step clearly instead of pretending.
import { ApplicationFailure } from '@temporalio/activity';
import type { StepInput } from '../workflows/types';

export function notAvailableYet(provider: string) {
  return async function notAvailable(_input: StepInput): Promise<never> {
    throw ApplicationFailure.nonRetryable(`provider ${provider} is not available yet on this service`, 'provider-not-available');
  };
}
