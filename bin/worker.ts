// Production worker process (stateless; scale horizontally). Shuts down gracefully on SIGINT/SIGTERM, at any moment:
// during start-up (waiting for Temporal, bundling the workflows) it stops what has started and exits 130/143; once
// running, after its in-flight tasks complete, exit 0 (bin/stack/lifecycle.ts).
import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../platform/config';
import { createLogger } from '../platform/observability/logger';
import { serveMetrics } from '../platform/observability/metrics';
import { createWorker, installSdkMetrics } from '../worker/create-worker';
import { currentBuild, makeCurrent } from '../worker/versioning';
import { openStore, temporalConnectionOptions, untilReachable, withSecrets } from './context';
import { tracingFromEnv } from '../platform/observability/tracing';
import { bundleWorkflowsOffThread } from './stack/bundle-thread';
import { lifecycle, unlessAborted } from './stack/lifecycle';

const baseConfig = loadConfig();
const log = createLogger(baseConfig.LOG_LEVEL, 'pa-worker');
const life = lifecycle(
  (m) => log.info(m),
  (m) => log.error(m),
);
try {
  // PostgreSQL's connection may be left behind on a signal; PGlite's opening, not (lifecycle.ts): it is waited for.
  const opening = openStore(baseConfig, (m) => log.info(m));
  const db = await (baseConfig.DATABASE_URL ? unlessAborted(opening, life.signal, (late) => late.close()) : opening);
  life.onStop('store', () => db.close());
  life.check();
  const config = await withSecrets(baseConfig, db, (m) => log.info(m));
  installSdkMetrics(config.TEMPORAL_METRICS_ADDRESS);
  // Activity outcomes and process metrics; the API process serves its own at /metrics.
  const metrics = config.WORKER_METRICS_PORT ? serveMetrics(config.WORKER_METRICS_PORT) : undefined;
  if (metrics) life.onStop('metrics server', () => new Promise((resolve) => metrics.close(resolve)));
  const connection = await unlessAborted(
    untilReachable(
      () => NativeConnection.connect(temporalConnectionOptions(config)),
      (m) => log.warn(m),
    ),
    life.signal,
    (late) => late.close(),
  );
  life.onStop('Temporal connection', () => connection.close());
  const tracing = tracingFromEnv('pa-worker');
  if (tracing) life.onStop('tracing', () => tracing.shutdown());
  const { worker, buildId } = await createWorker({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    deps: { db, log, config },
    tracing,
    // Off the main thread, so that a signal is taken at once and ends the bundling.
    bundle: (withTracing) => bundleWorkflowsOffThread(withTracing, life.signal),
  });
  // The SDK, too, stops it on SIGINT/SIGTERM, after in-flight tasks complete.
  const running = worker.run();
  life.onStop('worker', async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running.catch(() => undefined); // its error, if any, is logged below
  });
  running.then(
    () => void life.stop('the worker stopped', 0),
    (err) => {
      log.error({ err }, 'the worker failed');
      void life.stop('the worker failed', 1);
    },
  );
  life.check();
  const version = { namespace: config.TEMPORAL_NAMESPACE, deploymentName: config.TEMPORAL_DEPLOYMENT_NAME, buildId };
  // A deploy's step (README), unless this worker is told to take it itself: then a new build takes over, once.
  const current = config.WORKER_MAKE_CURRENT
    ? await makeCurrent(connection, { ...version, once: true, signal: life.signal })
    : (await currentBuild(connection, version)) === buildId;
  life.check();
  if (!current)
    log.warn(
      version,
      config.WORKER_MAKE_CURRENT
        ? 'this build was current before and has been replaced: it does not take back over (a rollback: temporal worker deployment set-current-version)'
        : 'this build is not the current one: it gets no task until a deploy makes it current (README)',
    );
  log.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, ...version, current }, 'worker running');
  log.flush(); // what supervisors wait for
  life.ready();
} catch (err) {
  await life.fail(err);
}
