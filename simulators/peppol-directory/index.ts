// Peppol Directory simulator: the indexer API (PUT /indexer/1.0/ with the participant id as text, DELETE and
// GET /indexer/1.0/{id}). It keeps the indexed set; it does not fetch business cards (yet).
import http from 'node:http';
import { INDEXER_PATH } from '../../peppol/directory-client';
import { InvalidParticipantIdError, normaliseParticipantId } from '../../peppol/participant-id';
import { closeServer, injectFault, listen, loadState, readBody, saveState, sendText, type FaultInjection } from '../sml/http';

export interface PeppolDirectorySimulatorOptions {
  host?: string;
  port?: number;
  stateFile?: string;
  faults?: FaultInjection;
}

export interface PeppolDirectorySimulator {
  url: string;
  close(): Promise<void>;
  /** Normalised participant ids currently indexed, sorted. */
  indexed(): string[];
  setFaults(faults: FaultInjection | undefined): void;
}

export async function startPeppolDirectorySimulator(opts: PeppolDirectorySimulatorOptions = {}): Promise<PeppolDirectorySimulator> {
  const indexed = new Set(loadState<{ indexed: string[] }>(opts.stateFile)?.indexed ?? []);
  const save = () => saveState(opts.stateFile, { indexed: [...indexed].sort() });
  let faults = opts.faults;

  const server = http.createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method === 'GET' && path === '/health') return sendText(res, 200, JSON.stringify({ simulator: 'peppol-directory', status: 'ok' }), 'application/json');
    if (!path.startsWith(INDEXER_PATH)) return sendText(res, 404, 'not found');
    if (await injectFault(faults, res)) return;
    const tail = path.slice(INDEXER_PATH.length);
    try {
      if (req.method === 'PUT' && tail === '') {
        const body = await readBody(req, 10_000);
        if (body === undefined) return sendText(res, 413, 'request too large');
        if (!body.includes('::')) return sendText(res, 400, 'the body is a participant id with its scheme: iso6523-actorid-upis::ICD:code');
        indexed.add(normaliseParticipantId(body));
        save();
        return sendText(res, 204, '');
      }
      if (tail === '' || tail.includes('/')) return sendText(res, 405, 'PUT /indexer/1.0/, GET or DELETE /indexer/1.0/{participant id}');
      const id = normaliseParticipantId(decodeURIComponent(tail));
      if (req.method === 'DELETE') {
        if (!indexed.delete(id)) return sendText(res, 404, `${id} is not indexed`);
        save();
        return sendText(res, 204, '');
      }
      if (req.method === 'GET') return indexed.has(id) ? sendText(res, 200, id) : sendText(res, 404, `${id} is not indexed`);
      return sendText(res, 405, 'method not allowed');
    } catch (err) {
      if (err instanceof InvalidParticipantIdError || err instanceof URIError) return sendText(res, 400, err.message);
      return sendText(res, 500, `simulator error: ${(err as Error).message}`);
    }
  });
  const url = await listen(server, opts.host ?? '127.0.0.1', opts.port ?? 0);
  return {
    url,
    close: () => closeServer(server),
    indexed: () => [...indexed].sort(),
    setFaults(f) {
      faults = f;
    },
  };
}
