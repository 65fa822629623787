// SML simulator: ManageBusinessIdentifierService (SOAP 1.1) at the BDMSL path, participants kept per SMP id.
import http from 'node:http';
import { applyFault, faultInjector, loseResponse, type FaultSetting } from '../faults';
import { parseParticipant } from '../peppol-participant';
import { closeServer, guarded, listen, readBody, sendText } from './http';
import { SmlRegistry, type PendingMigration } from './registry';
import { handleSoap } from './soap-handler';
import { SML_SERVICE_PATH } from './wsdl';

export interface SmlSimulatorOptions {
  host?: string;
  port?: number;
  /** JSON file the participants are kept in across restarts. */
  stateFile?: string;
  faults?: FaultSetting;
  /** Participants per List page (BDMSL pages too). */
  pageSize?: number;
  /** SMP ids callers may act for (others get an UnauthorizedFault); any id when absent. */
  allowedSmpIds?: string[];
}

export interface SmlSimulator {
  url: string;
  /** The service endpoint: `url` + SML_SERVICE_PATH. */
  endpoint: string;
  close(): Promise<void>;
  /** Normalised participant ids registered for an SMP, sorted. */
  participants(smpId: string): string[];
  /** The SMP id a participant (`scheme::value` or a bare `ICD:code`, any case) is registered for, if any. */
  ownerOf(participantId: string): string | undefined;
  /**
   * Registers a participant for an SMP directly, as if that SMP had created it (e.g. one held by another SMP, to
   * migrate); replaces its owner if it has one, and drops any migration prepared for it.
   */
  seedParticipant(smpId: string, participantId: string): void;
  /** The migration prepared for a participant (the SMP that prepared it and the key), until Migrate spends it. */
  pendingMigration(participantId: string): PendingMigration | undefined;
  setFaults(faults: FaultSetting | undefined): void;
  /** Injected faults so far, by status and "timeout" (held requests). */
  faultsSeen(): Record<string, number>;
}

export async function startSmlSimulator(opts: SmlSimulatorOptions = {}): Promise<SmlSimulator> {
  const registry = new SmlRegistry(opts.stateFile);
  const faults = faultInjector(opts.faults);
  const server = http.createServer(
    guarded(async (req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method === 'GET' && path === '/health')
        return sendText(res, 200, JSON.stringify({ simulator: 'sml', status: 'ok' }), 'application/json');
      if (path !== SML_SERVICE_PATH)
        return sendText(res, 404, `no service at ${path}; the SML service is at ${SML_SERVICE_PATH}`);
      if (req.method !== 'POST') return sendText(res, 405, 'SOAP 1.1: POST only');
      const xml = await readBody(req);
      if (xml === undefined) return sendText(res, 413, 'request too large');
      const fault = faults.decide({ target: `POST ${path}`, body: xml });
      if (await applyFault(fault, req, res, (status, detail) => sendText(res, status, detail))) return;
      if (!/^text\/xml\b/i.test(req.headers['content-type'] ?? ''))
        return sendText(res, 415, 'SOAP 1.1 messages are text/xml');
      const out = handleSoap(registry, xml, req.headers.soapaction as string | undefined, {
        pageSize: opts.pageSize ?? 100,
        allowedSmpIds: opts.allowedSmpIds,
      });
      if (loseResponse(fault, res)) return;
      sendText(res, out.status, out.body, 'text/xml; charset=utf-8');
    }),
  );
  const url = await listen(server, opts.host ?? '127.0.0.1', opts.port ?? 0);
  return {
    url,
    endpoint: url + SML_SERVICE_PATH,
    close: () => closeServer(server),
    participants: (smpId) => registry.of(smpId),
    ownerOf: (participantId) => registry.owner(parseParticipant(participantId)),
    seedParticipant: (smpId, participantId) => {
      const id = parseParticipant(participantId);
      registry.remove(id);
      registry.add(smpId, id);
    },
    pendingMigration: (participantId) => registry.pendingMigration(parseParticipant(participantId)),
    setFaults: (f) => faults.set(f),
    faultsSeen: () => faults.seen(),
  };
}
