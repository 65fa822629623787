// Production API process (stateless; scale horizontally). Needs DATABASE_URL and a reachable Temporal.
import { sealKeyFromConfig } from '../crypto/seal-key';
import { dataBoxFromConfig } from '../crypto/data-box';
import { createApp } from '../api/app';
import { runQueuedJobSweeper } from '../transform/jobs';
import { runWebhookDispatcher } from '../events/dispatch';
import { loadConfig } from '../config';
import { createLogger } from '../lib/logger';
import { connectTemporal, openStore, untilReachable, withSecrets } from './context';
import { tracingFromEnv } from '../lib/tracing';

const baseConfig = loadConfig();
const log = createLogger(baseConfig.LOG_LEVEL, 'pa-api');
const db = await openStore(baseConfig, (m) => log.info(m));
const config = await withSecrets(baseConfig, db, (m) => log.info(m));
const tracing = tracingFromEnv('pa-api');
const temporal = await untilReachable(() => connectTemporal(config, tracing), (m) => log.warn(m));
const jobDeps = { db, log, temporal, config, box: dataBoxFromConfig(config), sealKey: sealKeyFromConfig(config) };
const app = createApp(jobDeps);
const stopSweeper = runQueuedJobSweeper(jobDeps);
const stopDispatcher = runWebhookDispatcher(jobDeps);
const server = app.listen(config.API_PORT, config.API_HOST, () => log.info({ url: config.publicBaseUrl }, 'API listening'));

const stop = () => {
  log.info('stopping');
  stopSweeper();
  stopDispatcher();
  server.close(async () => {
    await temporal.connection.close();
    await tracing?.shutdown(); // the last spans
    await db.close();
    process.exit(0);
  });
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
