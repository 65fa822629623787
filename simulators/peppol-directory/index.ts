// Peppol Directory simulator: the indexer API (PUT /indexer/1.0/ with the participant id as text, DELETE and
// GET /indexer/1.0/{id}). Given our SMP's URL, a PUT reads the participant's business card back from
// `{smpUrl}/businesscard/{id}` as the real Directory does, validates it against the BusinessCard XSD and keeps it.
// The real Directory fetches later, in the background; the simulator does it before answering so that a card our
// SMP cannot serve shows up as a failed step: unreachable SMP or 5xx → 503 (retried), 404 → 404, invalid → 422.
import http from 'node:http';
import { applyFault, faultInjector, loseResponse, type FaultSetting } from '../faults';
import { BadParticipantId, parseParticipant } from '../peppol-participant';
import { xmlSchemaErrors } from '../peppol-xsd';
import { closeServer, guarded, listen, loadState, readBody, saveState, sendText } from '../sml/http';

/** The indexer's REST interface (Peppol Directory specification): PUT here, GET and DELETE here + participant id. */
export const INDEXER_PATH = '/indexer/1.0/';
const BUSINESS_CARD_XSD = 'peppol-directory-business-card-20180621.xsd';

export interface PeppolDirectorySimulatorOptions {
  host?: string;
  port?: number;
  stateFile?: string;
  faults?: FaultSetting;
  /** Our SMP's public base URL (e.g. `http://127.0.0.1:8080/smp`); without it, PUT indexes without a card. */
  smpUrl?: string;
}

export interface PeppolDirectorySimulator {
  url: string;
  close(): Promise<void>;
  /** Normalised participant ids currently indexed, sorted. */
  indexed(): string[];
  /** The BusinessCard XML read from the SMP when the participant was (last) indexed. */
  businessCard(participantId: string): string | undefined;
  setFaults(faults: FaultSetting | undefined): void;
  /** Injected faults so far, by status and "timeout" (held requests). */
  faultsSeen(): Record<string, number>;
  /** Sets (or clears) the SMP URL after start, for SMPs listening on a port chosen later. */
  setSmpUrl(url: string | undefined): void;
}

interface Saved {
  indexed: string[];
  cards?: Record<string, string>;
}

class CardError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function fetchCard(smpUrl: string, id: string): Promise<string> {
  const url = `${smpUrl.replace(/\/+$/, '')}/businesscard/${encodeURIComponent(id)}`;
  let res: Response;
  let xml: string;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    xml = await res.text();
  } catch (err) {
    throw new CardError(503, `cannot read the business card at ${url}: ${(err as Error).message}`);
  }
  if (res.status === 404) throw new CardError(404, `the SMP has no business card for ${id} (${url})`);
  if (!res.ok) throw new CardError(503, `the SMP answered HTTP ${res.status} for ${url}`);
  const errors = xmlSchemaErrors(xml, BUSINESS_CARD_XSD);
  if (errors.length) throw new CardError(422, `the business card of ${id} is invalid: ${errors.join('; ')}`);
  return xml;
}

export async function startPeppolDirectorySimulator(
  opts: PeppolDirectorySimulatorOptions = {},
): Promise<PeppolDirectorySimulator> {
  const saved = loadState<Saved>(opts.stateFile);
  const indexed = new Set(saved?.indexed ?? []);
  const cards = new Map(Object.entries(saved?.cards ?? {}));
  const save = () =>
    saveState(opts.stateFile, { indexed: [...indexed].sort(), cards: Object.fromEntries(cards) } satisfies Saved);
  const faults = faultInjector(opts.faults);
  let smpUrl = opts.smpUrl;

  const server = http.createServer(
    guarded(async (req, res) => {
      const path = (req.url ?? '/').split('?')[0]!;
      if (req.method === 'GET' && path === '/health')
        return sendText(res, 200, JSON.stringify({ simulator: 'peppol-directory', status: 'ok' }), 'application/json');
      if (!path.startsWith(INDEXER_PATH)) return sendText(res, 404, 'not found');
      const body = await readBody(req, 10_000);
      if (body === undefined) return sendText(res, 413, 'request too large');
      const fault = faults.decide({ target: `${req.method} ${path}`, body });
      if (await applyFault(fault, req, res, (status, detail) => sendText(res, status, detail))) return;
      const tail = path.slice(INDEXER_PATH.length);
      try {
        if (req.method === 'PUT' && tail === '') {
          if (!body.includes('::'))
            return sendText(res, 400, 'the body is a participant id with its scheme: iso6523-actorid-upis::ICD:code');
          const id = parseParticipant(body);
          if (smpUrl) cards.set(id, await fetchCard(smpUrl, id));
          indexed.add(id);
          save();
          if (loseResponse(fault, res)) return;
          return sendText(res, 204, '');
        }
        if (tail === '' || tail.includes('/'))
          return sendText(res, 405, `PUT ${INDEXER_PATH}, GET or DELETE ${INDEXER_PATH}{participant id}`);
        const id = parseParticipant(decodeURIComponent(tail));
        if (req.method === 'DELETE') {
          cards.delete(id);
          if (!indexed.delete(id)) return sendText(res, 404, `${id} is not indexed`);
          save();
          if (loseResponse(fault, res)) return;
          return sendText(res, 204, '');
        }
        if (req.method === 'GET')
          return indexed.has(id) ? sendText(res, 200, id) : sendText(res, 404, `${id} is not indexed`);
        return sendText(res, 405, 'method not allowed');
      } catch (err) {
        if (err instanceof CardError) return sendText(res, err.status, err.message);
        if (err instanceof BadParticipantId || err instanceof URIError) return sendText(res, 400, err.message);
        return sendText(res, 500, `simulator error: ${(err as Error).message}`);
      }
    }),
  );
  const url = await listen(server, opts.host ?? '127.0.0.1', opts.port ?? 0);
  return {
    url,
    close: () => closeServer(server),
    indexed: () => [...indexed].sort(),
    businessCard: (id) => cards.get(parseParticipant(id)),
    setFaults: (f) => faults.set(f),
    faultsSeen: () => faults.seen(),
    setSmpUrl(u) {
      smpUrl = u;
    },
  };
}
