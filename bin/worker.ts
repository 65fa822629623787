// Production worker process (stateless; scale horizontally). Shuts down gracefully on SIGINT/SIGTERM.
import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../config';
import { createLogger } from '../lib/logger';
import { createWorker } from '../worker/create-worker';
import { openStore } from './context';

const config = loadConfig();
const log = createLogger(config.LOG_LEVEL, 'pa-worker');
const db = await openStore(config, (m) => log.info(m));
const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
const worker = await createWorker({ connection, namespace: config.TEMPORAL_NAMESPACE, taskQueue: config.TEMPORAL_TASK_QUEUE, deps: { db, log, config } });
log.info({ taskQueue: config.TEMPORAL_TASK_QUEUE }, 'worker running');
await worker.run(); // the SDK stops it on SIGINT/SIGTERM, after in-flight tasks complete
await connection.close();
await db.close();
