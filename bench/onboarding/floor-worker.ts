// The floor's worker process, with the service worker's settings (worker/create-worker.ts), answering the bench
// over IPC: how many floor workflows reached each mark, and when each did.
import { NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../platform/config';
import { workerTuning } from '../../worker/create-worker';
import * as activities from './floor-activities';

const config = loadConfig();
const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
const worker = await Worker.create({
  connection,
  namespace: config.TEMPORAL_NAMESPACE,
  taskQueue: config.TEMPORAL_TASK_QUEUE,
  workflowBundle: await bundleWorkflowCode({
    workflowsPath: path.join(path.dirname(fileURLToPath(import.meta.url)), 'floor-workflow.ts'),
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} },
  }),
  activities: { noop: activities.noop, mark: activities.mark },
  ...workerTuning(config),
});
process.on('message', (m: { ask: 'counts' | 'marks' }) => {
  const { waiting, done } = activities.marks;
  if (m.ask === 'counts') process.send!({ waiting: waiting.size, done: done.size });
  else process.send!({ waiting: [...waiting], done: [...done] });
});
console.log('floor worker running');
await worker.run();
