// Worker Versioning (Temporal Worker Deployments): every worker polls as one build of the deployment; the server
// routes new runs, and the next task of every (auto-upgrade) run, to the deployment's current build. Why every
// workflow type is auto-upgrade, and how a change stays replayable: README.
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { WorkflowBundleOption } from '@temporalio/worker';
import type { NativeConnection } from '@temporalio/worker';
import type { Config } from '../platform/config';

/**
 * A build's id: WORKER_BUILD_ID, else the hash of the workflow code it runs, without its inline source map (which
 * names the checkout's absolute paths): the same code, wherever it was bundled, is the same build.
 */
export function buildIdOf(bundle: WorkflowBundleOption, c: Pick<Config, 'WORKER_BUILD_ID'>): string {
  if (c.WORKER_BUILD_ID) return c.WORKER_BUILD_ID;
  const code = 'code' in bundle ? bundle.code : fs.readFileSync(bundle.codePath, 'utf8');
  const withoutMap = code.replace(/\/\/# sourceMappingURL=\S*\s*$/m, '');
  return crypto.createHash('sha256').update(withoutMap).digest('hex').slice(0, 12);
}

/**
 * The worker's versioning: its build of the deployment. Every workflow type moves to the current build on its next
 * task (each also says so itself): a deploy may replace the workers at once, and no run waits for a build gone.
 */
export const deploymentOptions = (c: Pick<Config, 'TEMPORAL_DEPLOYMENT_NAME'>, buildId: string) => ({
  useWorkerVersioning: true as const,
  version: { deploymentName: c.TEMPORAL_DEPLOYMENT_NAME, buildId },
  defaultVersioningBehavior: 'AUTO_UPGRADE' as const,
});

type Service = Pick<NativeConnection, 'workflowService'>;

/**
 * Makes `buildId` the deployment's current build, once the server has seen it poll (a set refused before: the
 * deployment or the version is not known yet, or the build does not poll every task queue of the current one yet).
 * `once`: a build that was current before and has been replaced (a worker of it restarting after a deploy) does not
 * take back over; a rollback is an operator's act (README). Returns whether `buildId` is current.
 */
export async function makeCurrent(
  connection: Service,
  opts: {
    namespace: string;
    deploymentName: string;
    buildId: string;
    once?: boolean;
    timeoutMs?: number;
    signal?: AbortSignal;
  },
): Promise<boolean> {
  const { namespace, deploymentName, buildId } = opts;
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (let pauseMs = 100; ; pauseMs = Math.min(pauseMs * 2, 1_000)) {
    opts.signal?.throwIfAborted();
    try {
      if (opts.once && (await replaced(connection, opts))) return false;
      await connection.workflowService.setWorkerDeploymentCurrentVersion({ namespace, deploymentName, buildId });
      return true;
    } catch (err) {
      const code = err instanceof Error && 'code' in err ? err.code : undefined;
      // 5 NOT_FOUND, 9 FAILED_PRECONDITION: not polled yet; anything else is not ours to wait out.
      if ((code !== 5 && code !== 9) || Date.now() > deadline)
        throw new Error(`could not make build ${buildId} current in ${deploymentName}: ${(err as Error).message}`, {
          cause: err,
        });
    }
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

/** Whether the build was current once and is no longer (throws NOT_FOUND until the server has seen it poll). */
async function replaced(
  connection: Service,
  opts: { namespace: string; deploymentName: string; buildId: string },
): Promise<boolean> {
  const { workerDeploymentInfo: info } = await connection.workflowService.describeWorkerDeployment(opts);
  const mine = info?.versionSummaries?.find((v) => v.deploymentVersion?.buildId === opts.buildId);
  if (!mine) throw Object.assign(new Error(`build ${opts.buildId} not seen polling yet`), { code: 5 });
  const current = info?.routingConfig?.currentDeploymentVersion?.buildId;
  return current !== opts.buildId && mine.firstActivationTime != null;
}

/** The deployment's current build, if any. */
export async function currentBuild(
  connection: Service,
  opts: { namespace: string; deploymentName: string },
): Promise<string | undefined> {
  try {
    const { workerDeploymentInfo } = await connection.workflowService.describeWorkerDeployment(opts);
    return workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId ?? undefined;
  } catch (err) {
    if (err instanceof Error && 'code' in err && err.code === 5) return undefined; // no worker of it has polled yet
    throw err;
  }
}
