// Untrusted files (pre-signed mandates, identity images, drawn signatures) are inspected here, in child processes.
import type { Config } from '../../platform/config';
import { InspectionPool, type PoolOptions } from './pool';

export { BusyError, InspectionPool, type FileChecker } from './pool';
export { RefusedFile, type Refusal, type RefusalCode } from './refusal';
export type { UploadEvidence } from './inspect-pdf';
export type { ImageMime } from './inspect-image';

type PoolConfig = Pick<Config, 'INSPECT_POOL_SIZE' | 'INSPECT_QUEUE' | 'INSPECT_TIMEOUT_MS' | 'INSPECT_MEMORY_MB'>;

export const poolOptions = (c: PoolConfig): PoolOptions => ({
  size: c.INSPECT_POOL_SIZE,
  queue: c.INSPECT_QUEUE,
  timeMs: c.INSPECT_TIMEOUT_MS,
  memoryMb: c.INSPECT_MEMORY_MB,
});

let shared: InspectionPool | undefined;
/** For an app built without a pool of its own (tests building one on the side): one per process, children unref'd. */
export const sharedInspectionPool = (c: PoolConfig) => (shared ??= new InspectionPool(poolOptions(c)));
