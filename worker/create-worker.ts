// The Temporal worker: the definition interpreter plus one activity per step provider.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Runtime, Worker, bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';

export const WORKFLOWS_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'workflows', 'index.ts');

export interface WorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  /** A prebuilt bundle (tests share one); otherwise the workflows are bundled at start. */
  workflowBundle?: WorkflowBundle;
}

export function bundleWorkflows(): Promise<WorkflowBundle> {
  return bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietBundlerLogger });
}

export async function createWorker(opts: WorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    workflowBundle: opts.workflowBundle ?? (await bundleWorkflows()),
    activities: createActivities(opts.deps),
    // A registration spends most of its life parked on the approval wait: keep many cached, run few at once.
    maxCachedWorkflows: 1000,
    maxConcurrentActivityTaskExecutions: 100,
    maxConcurrentWorkflowTaskExecutions: 50,
  });
}

const quietBundlerLogger = {
  trace() {}, debug() {}, info() {},
  warn: (m: string, meta?: unknown) => console.warn(m, meta ?? ''),
  error: (m: string, meta?: unknown) => console.error(m, meta ?? ''),
  log() {},
};

/**
 * Temporal's SDK metrics on a Prometheus listener (`host:port`), when configured. Must run before the first
 * NativeConnection or Worker of the process: the runtime is installed once.
 */
export function installSdkMetrics(address: string | undefined): void {
  if (!address) return;
  Runtime.install({ telemetryOptions: { metrics: { prometheus: { bindAddress: address } } } });
}
