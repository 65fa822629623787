// No-op activities of the floor workflow. `mark` only notes the time a phase ended, for the bench's latencies.
import { Context } from '@temporalio/activity';

export const marks = { waiting: new Map<string, number>(), done: new Map<string, number>() };

export async function noop(): Promise<void> {}

export async function mark(phase: 'waiting' | 'done'): Promise<void> {
  marks[phase].set(Context.current().info.workflowExecution?.workflowId ?? '?', Date.now());
}
