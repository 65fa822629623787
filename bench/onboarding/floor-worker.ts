// The floor's worker process, with the service worker's settings (worker/create-worker.ts), Worker Versioning
// included (a build of its own deployment, made current as the cluster's workers make theirs), answering the bench
// over IPC: how many floor workflows reached each mark, and when each did.
import { NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../platform/config';
import { workerTuning } from '../../worker/create-worker';
import { buildIdOf, deploymentOptions, makeCurrent } from '../../worker/versioning';
import * as activities from './floor-activities';

const config = loadConfig();
const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
const workflowBundle = await bundleWorkflowCode({
  workflowsPath: path.join(path.dirname(fileURLToPath(import.meta.url)), 'floor-workflow.ts'),
  logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} },
});
// Its deployment is named after its task queue, as the cluster's is (bin/stack/cluster.ts).
const version = {
  namespace: config.TEMPORAL_NAMESPACE,
  deploymentName: config.TEMPORAL_TASK_QUEUE,
  buildId: buildIdOf(workflowBundle, {}),
};
const worker = await Worker.create({
  connection,
  namespace: config.TEMPORAL_NAMESPACE,
  taskQueue: config.TEMPORAL_TASK_QUEUE,
  workflowBundle,
  workerDeploymentOptions: deploymentOptions({ TEMPORAL_DEPLOYMENT_NAME: version.deploymentName }, version.buildId),
  activities: { noop: activities.noop, mark: activities.mark },
  ...workerTuning(config),
});
process.on('message', (m: { ask: 'counts' | 'marks' }) => {
  const { waiting, done } = activities.marks;
  if (m.ask === 'counts') process.send!({ waiting: waiting.size, done: done.size });
  else process.send!({ waiting: [...waiting], done: [...done] });
});
const running = worker.run();
await makeCurrent(connection, version); // once it polls: before that, no build would take the floor's runs
console.log('floor worker running');
await running;
