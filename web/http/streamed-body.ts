// A request body read as it arrives, by a route that may take minutes over it (web/http/malformed-requests.ts spares
// it the whole-request limit): a sender silent for `idleMs` between two chunks is refused with a 408.
import type { Request, Response } from 'express';
import { DomainError } from '../../domain/errors';
import { streamedUpload } from './malformed-requests';

export async function* streamedBody(req: Request, idleMs: number): AsyncGenerator<Buffer> {
  streamedUpload(req);
  const chunks = req[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const silence = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new DomainError('request-timeout', `no byte of the body arrived for ${idleMs / 1000} s: send it again`),
          ),
        idleMs,
      );
    });
    try {
      const next = await Promise.race([chunks.next(), silence]);
      if (next.done) return;
      yield next.value;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Runs `read` over the body; a refusal before its end closes the connection after the answer (the sender stops). */
export async function readingBody<T>(req: Request, res: Response, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (!req.complete) res.set('connection', 'close');
    throw err;
  }
}
