// Bundling the workflows (webpack, several seconds) on a worker thread: the main thread's event loop stays free, so a
// signal is handled at once (tsx, under `npm start`, SIGKILLs a child that does not take a signal within 30 ms), and
// the bundling can be abandoned — the thread terminated — when the start-up is interrupted.
import { createRequire } from 'node:module';
import { Worker as Thread } from 'node:worker_threads';
import type { WorkflowBundle } from '@temporalio/worker';
import { bundleSources } from '../../worker/create-worker';

const require = createRequire(import.meta.url);

/** The thread's code, plain CommonJS (no tsx in the thread: webpack's own loader reads the TypeScript). */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { bundleWorkflowCode } = require(workerData.bundler);
const quiet = { trace() {}, debug() {}, info() {}, log() {}, warn: (m) => console.warn(m), error: (m) => console.error(m) };
bundleWorkflowCode({ ...workerData.sources, logger: quiet }).then((b) => parentPort.postMessage(b.code));
`;

/** The bundle, built on a thread; `signal` terminates the thread and rejects with the signal's reason. */
export function bundleWorkflowsOffThread(tracing: boolean, signal?: AbortSignal): Promise<WorkflowBundle> {
  signal?.throwIfAborted();
  const thread = new Thread(THREAD, {
    eval: true,
    execArgv: [],
    workerData: {
      bundler: require.resolve('@temporalio/worker/lib/workflow/bundler'),
      sources: bundleSources(tracing),
    },
  });
  return new Promise<WorkflowBundle>((resolve, reject) => {
    const onAbort = () => {
      void thread.terminate();
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => signal?.removeEventListener('abort', onAbort);
    thread.once('message', (code: string) => {
      done();
      resolve({ code });
      void thread.terminate();
    });
    thread.once('error', (err) => {
      done();
      reject(err);
    });
    thread.once('exit', (code) => {
      done();
      reject(new Error(`the workflow bundling thread exited (${code})`));
    });
  });
}
