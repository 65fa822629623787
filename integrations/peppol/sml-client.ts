// Long file: one SOAP client of one service, whose operations share the envelope, TLS and fault parsing.
// SOAP 1.1 client of the SML's ManageBusinessIdentifierService (BDMSL): Create, Delete, List, and the migration of a
// participant between SMPs (PrepareToMigrate by its SMP, Migrate by the new one), as in
// ManageBusinessIdentifierService-1.0.wsdl. The wire helpers are exported for the simulator, which speaks the same.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { Dispatcher } from 'undici';
import { isRetryableStatus, parseRetryAfter, RemoteFailure } from '../remote-failure';
import { send } from '../outbound-http';
import { PARTICIPANT_SCHEME, formatParticipantId, parseParticipantId } from './participant-id';

export const NS = {
  soap: 'http://schemas.xmlsoap.org/soap/envelope/',
  lrs: 'http://busdox.org/serviceMetadata/locator/1.0/',
  ids: 'http://busdox.org/transport/identifiers/1.0/',
} as const;

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

// ---- XML with namespaces resolved (fast-xml-parser keeps prefixes; we resolve them against xmlns declarations)

export interface XmlElement {
  ns?: string;
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

export class XmlError extends Error {}

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
});

export function parseXml(xml: string): XmlElement {
  if (/<!DOCTYPE/i.test(xml)) throw new XmlError('a DOCTYPE is not allowed in a SOAP message');
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new XmlError(`not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  const roots = toElements(parser.parse(xml) as Node[], {});
  if (roots.length !== 1) throw new XmlError('expected one root element');
  return roots[0]!;
}

type Node = Record<string, unknown> & { ':@'?: Record<string, string> };

function toElements(nodes: Node[], scope: Record<string, string>): XmlElement[] {
  const out: XmlElement[] = [];
  for (const node of nodes) {
    const tag = Object.keys(node).find((k) => k !== ':@');
    if (!tag || tag.startsWith('?') || tag.startsWith('#')) continue;
    const rawAttrs = node[':@'] ?? {};
    const inner = { ...scope };
    const attrs: Record<string, string> = {};
    for (const [k, v] of Object.entries(rawAttrs)) {
      if (k === 'xmlns') inner[''] = v;
      else if (k.startsWith('xmlns:')) inner[k.slice(6)] = v;
      else attrs[k] = v;
    }
    const [prefix, local] = tag.includes(':') ? (tag.split(':', 2) as [string, string]) : ['', tag];
    if (prefix && !(prefix in inner)) throw new XmlError(`undeclared namespace prefix "${prefix}"`);
    const kids = node[tag] as Node[];
    out.push({
      ns: inner[prefix] || undefined,
      name: local,
      attrs,
      children: toElements(kids, inner),
      text: kids
        .map((k) => (typeof k['#text'] === 'string' ? k['#text'] : ''))
        .join('')
        .trim(),
    });
  }
  return out;
}

export const is = (el: XmlElement | undefined, ns: string, name: string): el is XmlElement =>
  el?.ns === ns && el.name === name;

export const escapeXml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

export const soapEnvelope = (body: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?><S:Envelope xmlns:S="${NS.soap}"><S:Body>${body}</S:Body></S:Envelope>`;

/** The Body's element (or undefined for an empty Body); throws XmlError if this is not a SOAP 1.1 envelope. */
export function readSoapBody(xml: string): XmlElement | undefined {
  const env = parseXml(xml);
  if (env.name !== 'Envelope') throw new XmlError(`root element is ${env.name}, not a SOAP Envelope`);
  if (env.ns !== NS.soap)
    throw new XmlError(`VersionMismatch: envelope namespace ${env.ns ?? '(none)'} is not SOAP 1.1`);
  const kids = env.children;
  const start = is(kids[0], NS.soap, 'Header') ? 1 : 0;
  const body = kids[start];
  if (!is(body, NS.soap, 'Body') || kids.length !== start + 1)
    throw new XmlError('a SOAP Envelope holds an optional Header then exactly one Body');
  if (body.children.length > 1) throw new XmlError('the SOAP Body holds more than one element');
  return body.children[0];
}

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
