// Production API process (stateless; scale horizontally). Needs DATABASE_URL and a reachable Temporal.
import { sealKeyFromConfig } from '../domain/mandate/seal-key';
import { dataBoxFromConfig } from '../platform/crypto/data-box';
import { createApp } from '../api/app';
import { serveInternalMetrics } from '../api/observability';
import { runQueuedJobSweeper } from '../domain/jobs/jobs';
import { runWebhookDispatcher } from '../domain/events/dispatch';
import { ConfigError, assertApiConfigSafe, loadConfig } from '../platform/config';
import { createLogger } from '../platform/observability/logger';
import { connectTemporal, openStore, untilReachable, withSecrets } from './context';
import { tracingFromEnv } from '../platform/observability/tracing';
import { Runtime } from '@temporalio/worker';
import { InspectionPool, poolOptions } from '../domain/inspection';
import { answerMalformedRequests } from '../web/http/malformed-requests';

const baseConfig = (() => {
  try {
    const c = loadConfig();
    assertApiConfigSafe(c);
    return c;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`[api] refusing to start: ${err.message}`);
    process.exit(1);
  }
})();
const log = createLogger(baseConfig.LOG_LEVEL, 'pa-api');
const db = await openStore(baseConfig, (m) => log.info(m));
const config = await withSecrets(baseConfig, db, (m) => log.info(m));
const tracing = tracingFromEnv('pa-api');
// The client's native runtime, with no worker to stop on signals: this process stops itself (below).
Runtime.install({ shutdownSignals: [] });
const temporal = await untilReachable(
  () => connectTemporal(config, tracing),
  (m) => log.warn(m),
);
// Uploaded files are decoded and checked in these child processes, off the event loop.
const inspector = new InspectionPool(poolOptions(config));
const jobDeps = {
  db,
  log,
  temporal,
  config,
  box: dataBoxFromConfig(config),
  sealKey: sealKeyFromConfig(config),
  inspector,
};
const app = createApp(jobDeps);
const stopSweeper = runQueuedJobSweeper(jobDeps);
const stopDispatcher = runWebhookDispatcher(jobDeps);
const server = app.listen(config.API_PORT, config.API_HOST, () => {
  log.info({ url: config.publicBaseUrl }, 'API listening');
  log.flush(); // what supervisors wait for
});
answerMalformedRequests(server);
const metricsServer = await serveInternalMetrics(config);
if (metricsServer) log.info({ host: config.METRICS_HOST, port: config.METRICS_PORT }, 'metrics listening (internal)');

const stop = () => {
  log.info('stopping');
  stopSweeper();
  stopDispatcher();
  metricsServer?.close();
  server.close(async () => {
    await inspector.close();
    await temporal.connection.close();
    await tracing?.shutdown(); // the last spans
    await db.close();
    process.exit(0);
  });
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
