// No-op activities of the floor workflow. `mark` is a no-op that also notes when a phase ended (the phase's last
// activity, so the marks add no activity), for the bench's latencies.
import { Context } from '@temporalio/activity';

export const marks = { waiting: new Map<string, number>(), done: new Map<string, number>() };

export async function noop(): Promise<void> {}

export async function mark(phase: 'waiting' | 'done'): Promise<void> {
  marks[phase].set(Context.current().info.workflowExecution?.workflowId ?? '?', Date.now());
}
