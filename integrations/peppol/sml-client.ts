// SOAP 1.1 client of the SML's ManageBusinessIdentifierService (BDMSL): Create, Delete, List, and the migration of a
// participant between SMPs (PrepareToMigrate by its SMP, Migrate by the new one), as in
// ManageBusinessIdentifierService-1.0.wsdl.
import type { Dispatcher } from 'undici';
import { isRetryableStatus, parseRetryAfter } from '../remote-failure';
import { RemoteFailure } from '../../domain/remote-failure';
import { send } from '../outbound-http';
import { PARTICIPANT_SCHEME, formatParticipantId, parseParticipantId } from './participant-id';
import { NS, escapeXml, is, readSoapBody, soapEnvelope, type XmlElement } from './soap';

// The WSDL's soapAction values really contain 9 blanks before ":createIn" (its comment: "implemented like this
// in CEF SML"); the SML matches them verbatim, so they are not a typo to fix.
const ACTION_BASE = 'http://busdox.org/serviceMetadata/ManageBusinessIdentifierService/1.0/         :';
export const SML_OPERATIONS = {
  Create: { element: 'CreateParticipantIdentifier', soapAction: `${ACTION_BASE}createIn` },
  Delete: { element: 'DeleteParticipantIdentifier', soapAction: `${ACTION_BASE}deleteIn` },
  List: { element: 'PageRequest', soapAction: `${ACTION_BASE}listIn` },
  PrepareToMigrate: { element: 'PrepareMigrationRecord', soapAction: `${ACTION_BASE}prepareMigrateIn` },
  Migrate: { element: 'CompleteMigrationRecord', soapAction: `${ACTION_BASE}migrateIn` },
} as const;
export type SmlOperation = keyof typeof SML_OPERATIONS;

/** The WSDL leaves the address "unknown"; BDMSL serves this service under the management URL at this path. */
export const SML_SERVICE_PATH = '/manageparticipantidentifier';

export const SML_FAULTS = ['BadRequestFault', 'NotFoundFault', 'UnauthorizedFault', 'InternalErrorFault'] as const;
export type SmlFaultName = (typeof SML_FAULTS)[number];

// ---- Errors

export type SmlErrorKind =
  | 'BadRequestFault'
  | 'NotFoundFault'
  | 'UnauthorizedFault'
  | 'InternalErrorFault'
  | 'SoapFault'
  | 'http'
  | 'network'
  | 'protocol';

export class SmlError extends RemoteFailure {
  constructor(
    message: string,
    readonly kind: SmlErrorKind,
    retryable: boolean,
    status?: number,
    retryAfterMs?: number,
  ) {
    super('sml', message, retryable, status, retryAfterMs);
    this.name = 'SmlError';
  }

  /** BDMSL answers a participant that is already registered with a BadRequestFault "… already exist …". */
  get alreadyExists(): boolean {
    return this.kind === 'BadRequestFault' && /already exist/i.test(this.message);
  }
}

/** A SOAP Fault in the body, as an SmlError; undefined if the text is not a SOAP fault. */
export function faultOf(xml: string, status?: number): SmlError | undefined {
  try {
    return faultIn(readSoapBody(xml), status);
  } catch {
    return undefined;
  }
}

/** The SOAP Fault a read Body holds, as an SmlError; undefined if it holds none. */
function faultIn(el: XmlElement | undefined, status?: number): SmlError | undefined {
  if (!is(el, NS.soap, 'Fault')) return undefined;
  const child = (name: string) => el.children.find((c) => c.name === name && !c.ns);
  const code = child('faultcode')?.text ?? '';
  const detail = child('detail')?.children.find(
    (c) => c.ns === NS.lrs && (SML_FAULTS as readonly string[]).includes(c.name),
  );
  const message =
    detail?.children.find((c) => c.name === 'FaultMessage')?.text || child('faultstring')?.text || 'SOAP fault';
  // An InternalErrorFault is the SML's own trouble (DNS, database): worth retrying, unlike the client faults.
  if (detail) return new SmlError(message, detail.name as SmlFaultName, detail.name === 'InternalErrorFault', status);
  return new SmlError(`${code}: ${message}`, 'SoapFault', /(^|:)Server/.test(code), status);
}

// ---- Client

export interface SmlClientOptions {
  /** The SML management service URL; SML_SERVICE_PATH is appended unless already there. */
  url: string;
  /** Our SMP's id at the SML. */
  smpId: string;
  timeoutMs?: number;
  /** Mutual TLS with the SML: an undici dispatcher carrying the client certificate (e.g. `new Agent({ connect: { cert, key } })`). */
  dispatcher?: Dispatcher;
}

export interface SmlClient {
  readonly endpoint: string;
  create(participantId: string): Promise<void>;
  delete(participantId: string): Promise<void>;
  listPage(nextPageIdentifier?: string): Promise<{ participants: string[]; next?: string }>;
  /** Every participant of our SMP (follows NextPageIdentifier). */
  list(): Promise<string[]>;
  /**
   * Our participant may move to another SMP with `key` (see migration-key.ts): it stays ours until the new SMP calls
   * Migrate with that key. Preparing again replaces the key. The SML refuses a key outside its rule
   * (BadRequestFault), a participant it does not know (NotFoundFault) or another SMP's (UnauthorizedFault).
   */
  prepareToMigrate(participantId: string, key: string): Promise<void>;
  /**
   * Takes over a participant another SMP prepared to migrate, with the key it gave the company; the key then serves
   * no more. The SML refuses a key outside its rule or a participant already ours (BadRequestFault), a participant
   * it does not know or with no migration prepared (NotFoundFault), and a key other than the prepared one
   * (UnauthorizedFault).
   */
  migrate(participantId: string, key: string): Promise<void>;
}

export function participantRequest(op: 'Create' | 'Delete', smpId: string, participantId: string): string {
  const p = parseParticipantId(participantId);
  return soapEnvelope(
    `<lrs:${SML_OPERATIONS[op].element} xmlns:lrs="${NS.lrs}" xmlns:ids="${NS.ids}">` +
      `<lrs:ServiceMetadataPublisherID>${escapeXml(smpId)}</lrs:ServiceMetadataPublisherID>` +
      `<ids:ParticipantIdentifier scheme="${escapeXml(p.scheme)}">${escapeXml(p.value)}</ids:ParticipantIdentifier>` +
      `</lrs:${SML_OPERATIONS[op].element}>`,
  );
}

/** A MigrationRecordType body (PrepareMigrationRecord or CompleteMigrationRecord); the key is sent verbatim. */
export function migrationRequest(
  op: 'PrepareToMigrate' | 'Migrate',
  smpId: string,
  participantId: string,
  key: string,
): string {
  const p = parseParticipantId(participantId);
  return soapEnvelope(
    `<lrs:${SML_OPERATIONS[op].element} xmlns:lrs="${NS.lrs}" xmlns:ids="${NS.ids}">` +
      `<lrs:ServiceMetadataPublisherID>${escapeXml(smpId)}</lrs:ServiceMetadataPublisherID>` +
      `<ids:ParticipantIdentifier scheme="${escapeXml(p.scheme)}">${escapeXml(p.value)}</ids:ParticipantIdentifier>` +
      `<lrs:MigrationKey>${escapeXml(key)}</lrs:MigrationKey>` +
      `</lrs:${SML_OPERATIONS[op].element}>`,
  );
}

export function createSmlClient(opts: SmlClientOptions): SmlClient {
  const base = opts.url.replace(/\/+$/, '');
  const endpoint = base.endsWith(SML_SERVICE_PATH) ? base : base + SML_SERVICE_PATH;

  async function call(op: SmlOperation, envelope: string): Promise<XmlElement | undefined> {
    let status: number;
    let text: string;
    let retryAfter: string | null;
    try {
      const res = await send(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${SML_OPERATIONS[op].soapAction}"` },
        body: envelope,
        idempotent: op === 'List',
        timeoutMs: opts.timeoutMs ?? 30_000,
        ...(opts.dispatcher && { dispatcher: opts.dispatcher }),
      });
      status = res.status;
      retryAfter = res.header('retry-after');
      text = await res.text();
    } catch (err) {
      throw new SmlError(`SML ${op} failed: ${(err as Error).message}`, 'network', true);
    }
    // Read once: a fault first (whatever the status), then the HTTP status, then a body that is no SOAP at all.
    let body: XmlElement | undefined;
    let unreadable: Error | undefined;
    try {
      body = readSoapBody(text);
    } catch (err) {
      unreadable = err as Error;
    }
    const fault = unreadable ? undefined : faultIn(body, status);
    if (fault) throw fault;
    if (status < 200 || status > 299) {
      const retryable = isRetryableStatus(status);
      throw new SmlError(
        `SML ${op} answered HTTP ${status}`,
        'http',
        retryable,
        status,
        retryable ? parseRetryAfter(retryAfter) : undefined,
      );
    }
    if (unreadable)
      throw new SmlError(`SML ${op} answered an unreadable response: ${unreadable.message}`, 'protocol', false, status);
    return body;
  }

  const client: SmlClient = {
    endpoint,
    async create(participantId) {
      await call('Create', participantRequest('Create', opts.smpId, participantId));
    },
    async delete(participantId) {
      await call('Delete', participantRequest('Delete', opts.smpId, participantId));
    },
    async listPage(next) {
      const body = await call(
        'List',
        soapEnvelope(
          `<lrs:PageRequest xmlns:lrs="${NS.lrs}"><lrs:ServiceMetadataPublisherID>${escapeXml(opts.smpId)}</lrs:ServiceMetadataPublisherID>` +
            `${next ? `<lrs:NextPageIdentifier>${escapeXml(next)}</lrs:NextPageIdentifier>` : ''}</lrs:PageRequest>`,
        ),
      );
      if (!is(body, NS.lrs, 'ParticipantIdentifierPage'))
        throw new SmlError('SML List did not answer a ParticipantIdentifierPage', 'protocol', false);
      const participants = body.children
        .filter((c) => is(c, NS.ids, 'ParticipantIdentifier'))
        .map((c) => formatParticipantId({ scheme: c.attrs.scheme ?? PARTICIPANT_SCHEME, value: c.text.toLowerCase() }));
      const nextId = body.children.find((c) => is(c, NS.lrs, 'NextPageIdentifier'))?.text;
      return { participants, ...(nextId && { next: nextId }) };
    },
    async prepareToMigrate(participantId, key) {
      await call('PrepareToMigrate', migrationRequest('PrepareToMigrate', opts.smpId, participantId, key));
    },
    async migrate(participantId, key) {
      await call('Migrate', migrationRequest('Migrate', opts.smpId, participantId, key));
    },
    async list() {
      const all: string[] = [];
      let next: string | undefined;
      do {
        const page = await client.listPage(next);
        all.push(...page.participants);
        next = page.next;
      } while (next);
      return all;
    },
  };
  return client;
}
