// The Temporal worker: the definition interpreter plus one activity per step provider.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  NativeConnection,
  Runtime,
  Worker,
  bundleWorkflowCode,
  type WorkerOptions as WorkerCreateOptions,
  type WorkflowBundle,
  type WorkflowBundleOption,
} from '@temporalio/worker';
import { OpenTelemetryActivityInboundInterceptor, makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry';
import { createActivities, type ActivityDeps } from '../activities';
import type { Tracing } from '../platform/observability/tracing';
import type { Config } from '../platform/config';
import { createClients, type Clients } from '../integrations/clients';
import { buildIdOf, deploymentOptions } from './versioning';
import { PACED_SYSTEMS, pacedQueue, type PacedSystem } from '../contract/providers';

export const WORKFLOWS_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'workflows', 'index.ts');

export interface WorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  /** The clients of the outside world; built here from the configuration when not given (tests pass their own). */
  clients?: Clients;
  /** A prebuilt bundle (tests share one); otherwise the workflows are bundled at start. */
  workflowBundle?: WorkflowBundle;
  /** OpenTelemetry tracing (platform/observability/tracing.ts): workflow and activity spans continuing the caller's trace. */
  tracing?: Tracing;
  /** Activities besides ours (tests: a probe a new build calls). */
  activities?: Record<string, (...args: never[]) => Promise<unknown>>;
  /** How the workflows are bundled when they must be (default bundleWorkflows, on this thread). */
  bundle?: (tracing: boolean) => Promise<WorkflowBundle>;
}

const TRACING_INTERCEPTORS = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  'workflow-tracing-interceptors.ts',
);

/** What the workflows are bundled from (plain data: bin/stack/bundle-thread.ts bundles them off the main thread). */
export const bundleSources = (tracing = false) => ({
  workflowsPath: WORKFLOWS_PATH,
  ...(tracing && { workflowInterceptorModules: [TRACING_INTERCEPTORS] }),
});

export function bundleWorkflows(tracing = false): Promise<WorkflowBundle> {
  return bundleWorkflowCode({ ...bundleSources(tracing), logger: quietBundlerLogger });
}

/** Workflows bundled from another entry point (tests: another build's code), as quietly. */
export function bundleWorkflowsFrom(workflowsPath: string): Promise<WorkflowBundle> {
  return bundleWorkflowCode({ workflowsPath, logger: quietBundlerLogger });
}

/** The prebuilt bundle named by WORKFLOW_BUNDLE_FILE (npm run build:workflows), if any. */
export function prebuiltBundle(c: Pick<Config, 'WORKFLOW_BUNDLE_FILE'>): WorkflowBundleOption | undefined {
  if (!c.WORKFLOW_BUNDLE_FILE) return undefined;
  if (!fs.existsSync(c.WORKFLOW_BUNDLE_FILE))
    throw new Error(`WORKFLOW_BUNDLE_FILE ${c.WORKFLOW_BUNDLE_FILE} does not exist: run npm run build:workflows`);
  return { codePath: path.resolve(c.WORKFLOW_BUNDLE_FILE) };
}

/** The workers of one process, run and stopped as one: the workflows' task queue and each paced system's. */
export interface WorkerGroup {
  run(): Promise<void>;
  shutdown(): void;
  getState(): Worker['getState'] extends () => infer S ? S : never;
}

/** A worker polling as one build of the deployment (worker/versioning.ts). */
export interface VersionedWorker {
  worker: WorkerGroup;
  buildId: string;
}

/** Runs `workers` together: a failure of one stops the others, and it is the group's. */
function groupOf(workers: Worker[]): WorkerGroup {
  const [main] = workers;
  return {
    async run() {
      const runs = workers.map((w) =>
        w.run().catch((err: unknown) => {
          for (const other of workers) if (other.getState() === 'RUNNING') other.shutdown();
          throw err;
        }),
      );
      await Promise.all(runs);
    },
    shutdown() {
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
    },
    getState: () => main!.getState(),
  };
}

export async function createWorker(opts: WorkerOptions): Promise<VersionedWorker> {
  const bundle = opts.bundle ?? bundleWorkflows;
  // Tracing needs its interceptors inside the bundle: built here, whatever was prebuilt.
  const workflowBundle = opts.tracing
    ? await bundle(true)
    : (opts.workflowBundle ?? prebuiltBundle(opts.deps.config) ?? (await bundle(false)));
  const buildId = buildIdOf(workflowBundle, opts.deps.config);
  const config = opts.deps.config;
  const activities = { ...createActivities(opts.deps, opts.clients ?? createClients(config)), ...opts.activities };
  const common: Pick<
    WorkerCreateOptions,
    'connection' | 'namespace' | 'workerDeploymentOptions' | 'activities' | 'interceptors'
  > = {
    connection: opts.connection,
    namespace: opts.namespace,
    workerDeploymentOptions: deploymentOptions(config, buildId),
    activities,
    ...(opts.tracing && {
      interceptors: { activity: [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx) })] },
    }),
  };
  const worker = await Worker.create({
    ...common,
    taskQueue: opts.taskQueue,
    workflowBundle,
    ...(opts.tracing && { sinks: { exporter: makeWorkflowExporter(opts.tracing.exporter, opts.tracing.resource) } }),
    ...workerTuning(config),
  });
  // The paced systems' steps (contract/providers.ts): the rate is the task queue's, the server's to keep across every
  // worker of the deployment; this process takes no more of them at once than its share of activity slots.
  const rates: Record<PacedSystem, number> = {
    annuaire: config.ANNUAIRE_STEPS_PER_S,
    peppol: config.PEPPOL_STEPS_PER_S,
  };
  const paced = await Promise.all(
    PACED_SYSTEMS.map((system) =>
      Worker.create({
        ...common,
        taskQueue: pacedQueue(opts.taskQueue, system),
        maxTaskQueueActivitiesPerSecond: rates[system],
        maxConcurrentActivityTaskExecutions: config.WORKER_MAX_CONCURRENT_ACTIVITIES,
      }),
    ),
  );
  return { worker: groupOf([worker, ...paced]), buildId };
}

/** Cache and concurrency of a worker (WORKER_* settings); the onboarding benchmark's floor worker uses the same. */
export function workerTuning(
  c: Pick<
    Config,
    'WORKER_MAX_CACHED_WORKFLOWS' | 'WORKER_MAX_CONCURRENT_ACTIVITIES' | 'WORKER_MAX_CONCURRENT_WORKFLOW_TASKS'
  >,
) {
  return {
    // A registration spends most of its life parked on the approval wait: the cache holds the active ones only.
    maxCachedWorkflows: c.WORKER_MAX_CACHED_WORKFLOWS,
    maxConcurrentActivityTaskExecutions: c.WORKER_MAX_CONCURRENT_ACTIVITIES,
    maxConcurrentWorkflowTaskExecutions: c.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS,
  };
}

const quietBundlerLogger = {
  trace() {},
  debug() {},
  info() {},
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
