// What the parts of a job's run share: the job and its definition, its journal and search attributes, its faults,
// and where it stands (cancellation asked, acting outside, ending, ended).
import { allHandlersFinished, condition, setCurrentDetails } from '@temporalio/workflow';
import type { Definition, Fault, JobInput, Step } from '../../contract/job';
import { JobJournal } from './journal';
import { SearchAttributes } from './search-attributes';

export class JobContext {
  readonly journal = new JobJournal();
  readonly attributes: SearchAttributes;
  readonly faults: Fault[] = [];
  cancelRequested = false;
  /** A step acting outside the store has started: the job can no longer be cancelled. */
  outside = false;
  /** Rescuing, cancelling or ending: no cancellation taken from then on. */
  ending = false;
  /** Its end recorded. */
  ended = false;
  /** Steps by id, rescue steps after the others. */
  private readonly positions: Map<string, number>;

  constructor(
    readonly job: JobInput,
    readonly definition: Definition,
  ) {
    this.attributes = new SearchAttributes(job.showsWaitingFor === true);
    const all = [...definition.steps, ...definition.rescue];
    this.positions = new Map(all.map((s, position) => [s.id, position]));
  }

  /** The job's ids, as its own activities take them. */
  get ids() {
    const { jobId, workspaceId, entryId } = this.job;
    return { jobId, workspaceId, entryId };
  }

  /** The step as the Temporal UI shows the run's progress: which of the definition's steps, what it does. */
  stepDetails(step: Step): string {
    return `Step ${this.position(step) + 1} of ${this.definition.steps.length}: ${step.name} (${step.provider})`;
  }

  position(step: Step): number {
    return this.positions.get(step.id)!;
  }

  /** The job's end is recorded: a cancel update taken meanwhile answers before the run closes. */
  async end(details: string): Promise<void> {
    setCurrentDetails(details); // nothing of a step stays shown once the run has ended
    this.ended = true;
    await condition(allHandlersFinished);
  }
}
