// Production worker process (stateless; scale horizontally). Shuts down gracefully on SIGINT/SIGTERM.
import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../platform/config';
import { createLogger } from '../platform/observability/logger';
import { serveMetrics } from '../platform/observability/metrics';
import { createWorker, installSdkMetrics } from '../worker/create-worker';
import { openStore, temporalConnectionOptions, untilReachable, withSecrets } from './context';
import { tracingFromEnv } from '../platform/observability/tracing';

const baseConfig = loadConfig();
const log = createLogger(baseConfig.LOG_LEVEL, 'pa-worker');
const db = await openStore(baseConfig, (m) => log.info(m));
const config = await withSecrets(baseConfig, db, (m) => log.info(m));
installSdkMetrics(config.TEMPORAL_METRICS_ADDRESS);
// Activity outcomes and process metrics; the API process serves its own at /metrics.
const metrics = config.WORKER_METRICS_PORT ? serveMetrics(config.WORKER_METRICS_PORT) : undefined;
const connection = await untilReachable(
  () => NativeConnection.connect(temporalConnectionOptions(config)),
  (m) => log.warn(m),
);
const tracing = tracingFromEnv('pa-worker');
const worker = await createWorker({
  connection,
  namespace: config.TEMPORAL_NAMESPACE,
  taskQueue: config.TEMPORAL_TASK_QUEUE,
  deps: { db, log, config },
  tracing,
});
log.info({ taskQueue: config.TEMPORAL_TASK_QUEUE }, 'worker running');
log.flush(); // what supervisors wait for
await worker.run(); // the SDK stops it on SIGINT/SIGTERM, after in-flight tasks complete
await connection.close();
metrics?.close();
await tracing?.shutdown();
await db.close();
