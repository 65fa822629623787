// Client of the Peppol Directory indexer API: we ask it to (re)index or drop a participant of our SMP; it then
// reads the participant's business card from our SMP by itself.
import type { Dispatcher } from 'undici';
import { isRetryableStatus, parseRetryAfter } from '../remote-failure';
import { RemoteFailure } from '../../domain/remote-failure';
import { send as sendHttp, type OutboundRequest } from '../outbound-http';
import { normaliseParticipantId } from './participant-id';

export const INDEXER_PATH = '/indexer/1.0/';

export class DirectoryError extends RemoteFailure {
  constructor(message: string, retryable: boolean, status?: number, retryAfterMs?: number) {
    super('directory', message, retryable, status, retryAfterMs);
    this.name = 'DirectoryError';
  }
}

export interface DirectoryClientOptions {
  /** Base URL of the Directory (INDEXER_PATH is appended). */
  url: string;
  timeoutMs?: number;
  /** Mutual TLS: the Directory authenticates the SMP by its certificate; an undici dispatcher carrying it. */
  dispatcher?: Dispatcher;
}

export interface DirectoryClient {
  index(participantId: string): Promise<void>;
  /** Drops the participant; one the Directory does not know counts as dropped. */
  remove(participantId: string): Promise<void>;
  isIndexed(participantId: string): Promise<boolean>;
}

export function createDirectoryClient(opts: DirectoryClientOptions): DirectoryClient {
  const base = opts.url.replace(/\/+$/, '') + INDEXER_PATH;

  async function send(
    what: string,
    url: string,
    init: Pick<OutboundRequest, 'method' | 'headers' | 'body'>,
    okStatuses: number[] = [],
  ): Promise<number> {
    let status: number;
    let ok: boolean;
    let retryAfter: string | null;
    try {
      const res = await sendHttp(url, {
        ...init,
        timeoutMs: opts.timeoutMs ?? 30_000,
        ...(opts.dispatcher && { dispatcher: opts.dispatcher }),
      });
      ({ status, ok } = res);
      retryAfter = res.header('retry-after');
      await res.discard(); // read to its end: the connection is then reused
    } catch (err) {
      throw new DirectoryError(`Peppol Directory ${what} failed: ${(err as Error).message}`, true);
    }
    if (ok || okStatuses.includes(status)) return status;
    const retryable = isRetryableStatus(status);
    const retryAfterMs = retryable ? parseRetryAfter(retryAfter) : undefined;
    throw new DirectoryError(`Peppol Directory ${what} answered HTTP ${status}`, retryable, status, retryAfterMs);
  }

  return {
    async index(participantId) {
      const id = normaliseParticipantId(participantId);
      await send('index', base, { method: 'PUT', headers: { 'content-type': 'text/plain; charset=utf-8' }, body: id });
    },
    async remove(participantId) {
      await send(
        'remove',
        base + encodeURIComponent(normaliseParticipantId(participantId)),
        { method: 'DELETE' },
        [404],
      );
    },
    async isIndexed(participantId) {
      const status = await send(
        'lookup',
        base + encodeURIComponent(normaliseParticipantId(participantId)),
        { method: 'GET' },
        [404],
      );
      return status !== 404;
    },
  };
}
