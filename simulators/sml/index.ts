// SML simulator: ManageBusinessIdentifierService (SOAP 1.1) at the BDMSL path, participants kept per SMP id; the
// SML's DNS zone (U-NAPTR, ./dns.ts) pointing each participant at its SMP's URL; admin routes for trials
// (./admin.ts, ./ADMIN.md).
import http from 'node:http';
import { applyFault, faultInjector, loseResponse, type FaultSetting } from '../faults';
import { parseParticipant } from '../peppol-participant';
import { ADMIN_PREFIX, handleAdmin, smpUrlProblem } from './admin';
import { DEFAULT_DNS_ZONE, startDnsResponder } from './dns';
import { participantDnsName } from './dns-name';
import { closeServer, guarded, listen, readBody, sendText } from './http';
import { SmlRegistry, type PendingMigration } from './registry';
import { handleSoap } from './soap-handler';
import { SML_SERVICE_PATH } from './wsdl';

export { DEFAULT_DNS_ZONE } from './dns';

export interface SmlSimulatorOptions {
  host?: string;
  port?: number;
  /** JSON file the participants are kept in across restarts (with a journal beside it, `<stateFile>.journal`). */
  stateFile?: string;
  faults?: FaultSetting;
  /** Participants per List page (BDMSL pages too). */
  pageSize?: number;
  /** SMP ids callers may act for (others get an UnauthorizedFault); any id when absent. */
  allowedSmpIds?: string[];
  /** UDP and TCP port of the DNS responder, on `host`; 0 (the default): any free port. */
  dnsPort?: number;
  /** The SML's DNS zone (DEFAULT_DNS_ZONE when absent). */
  dnsZone?: string;
  /** TTL of the answers, in seconds (60 when absent). */
  dnsTtlSeconds?: number;
  /** Each SMP's logical address, carried by its participants' NAPTR records; wins over the one in the state file. */
  smpUrls?: Record<string, string>;
}

export interface SmlSimulator {
  url: string;
  /** The service endpoint: `url` + SML_SERVICE_PATH. */
  endpoint: string;
  /**
   * Where the DNS responder listens (UDP and TCP): the IP address bound (the loopback for a wildcard host), e.g. for
   * `resolver.setServers([`${dnsAddress}:${dnsPort}`])` (an IPv6 address goes in brackets there).
   */
  dnsAddress: string;
  dnsPort: number;
  dnsZone: string;
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
  /** seedParticipant for many at once (one journal record): how many were new, and how many had another owner. */
  seedParticipants(smpId: string, participantIds: readonly string[]): { added: number; moved: number };
  /** The migration prepared for a participant (the SMP that prepared it and the key), until Migrate spends it. */
  pendingMigration(participantId: string): PendingMigration | undefined;
  /** The URL an SMP's NAPTR records carry: the one set, else `https://<smp id lowercased>.smp.invalid`. */
  smpUrl(smpId: string): string;
  setSmpUrl(smpId: string, url: string): void;
  /** The DNS name (no trailing dot) of a participant in the zone. */
  dnsName(participantId: string): string;
  setFaults(faults: FaultSetting | undefined): void;
  /** Injected faults so far, by status and "timeout" (held requests). */
  faultsSeen(): Record<string, number>;
}

/** The URL of an SMP nobody gave one: a name that never resolves (RFC 6761 .invalid). */
export const defaultSmpUrl = (smpId: string): string =>
  `https://${smpId.toLowerCase().replace(/[^a-z0-9.-]/g, '-')}.smp.invalid`;

export async function startSmlSimulator(opts: SmlSimulatorOptions = {}): Promise<SmlSimulator> {
  const registry = new SmlRegistry(opts.stateFile);
  const setSmpUrl = (smpId: string, url: string) => {
    const problem = smpUrlProblem(url);
    if (problem) throw new Error(`SMP ${smpId}: ${problem}`);
    registry.setSmpUrl(smpId, url);
  };
  for (const [smpId, url] of Object.entries(opts.smpUrls ?? {})) setSmpUrl(smpId, url);
  const smpUrl = (smpId: string) => registry.smpUrl(smpId) ?? defaultSmpUrl(smpId);
  const zone = (opts.dnsZone ?? DEFAULT_DNS_ZONE).toLowerCase().replace(/^\.+|\.+$/g, '');
  const dnsName = (participantId: string) => participantDnsName(parseParticipant(participantId), zone);

  const faults = faultInjector(opts.faults);
  const server = http.createServer(
    guarded(async (req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method === 'GET' && path === '/health')
        return sendText(res, 200, JSON.stringify({ simulator: 'sml', status: 'ok' }), 'application/json');
      if (path?.startsWith(ADMIN_PREFIX)) return handleAdmin(req, res, { registry, smpUrl, dnsName });
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
  const host = opts.host ?? '127.0.0.1';
  const url = await listen(server, host, opts.port ?? 0);
  const dns = await startDnsResponder(host, opts.dnsPort ?? 0, {
    zone,
    ttl: opts.dnsTtlSeconds ?? 60,
    smpUrlOfLabel: (label) => {
      const id = registry.participantOfLabel(label);
      const owner = id && registry.owner(id);
      return owner ? smpUrl(owner) : undefined;
    },
  }).catch(async (err: unknown) => {
    await closeServer(server);
    throw err;
  });
  return {
    url,
    endpoint: url + SML_SERVICE_PATH,
    dnsAddress: dns.address,
    dnsPort: dns.port,
    dnsZone: zone,
    close: async () => {
      await Promise.all([closeServer(server), dns.close()]);
    },
    participants: (smpId) => registry.of(smpId),
    ownerOf: (participantId) => registry.owner(parseParticipant(participantId)),
    seedParticipant: (smpId, participantId) => {
      registry.seed(smpId, [parseParticipant(participantId)]);
    },
    seedParticipants: (smpId, participantIds) => registry.seed(smpId, participantIds.map(parseParticipant)),
    pendingMigration: (participantId) => registry.pendingMigration(parseParticipant(participantId)),
    smpUrl,
    setSmpUrl,
    dnsName,
    setFaults: (f) => faults.set(f),
    faultsSeen: () => faults.seen(),
  };
}
