// One SOAP 1.1 request of ManageBusinessIdentifierService → the response envelope (success or fault), like BDMSL.
// The body element is validated against peppol-sml-types-v1.xsd (as BDMSL's JAX-WS does: an invalid body is a
// plain soap:Client fault); an SMP id outside the allow-list, when one is set, gets an UnauthorizedFault (BDMSL
// ties each SMP id to the client certificate that created it).
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import { PEPPOL_XSD, xsdErrors } from '../../integrations/peppol/xsd';
import { InvalidParticipantIdError, normaliseParticipantId, PARTICIPANT_SCHEME } from '../../integrations/peppol/participant-id';
import {
  NS, SML_OPERATIONS, escapeXml, is, readSoapBody, soapEnvelope,
  type SmlFaultName, type SmlOperation, type XmlElement,
} from '../../integrations/peppol/sml-client';
import type { SmlRegistry } from './registry';

export interface SoapResponse {
  status: number;
  body: string;
}

class Fault extends Error {
  constructor(readonly code: 'Client' | 'Server' | 'VersionMismatch', message: string, readonly detail?: SmlFaultName) {
    super(message);
  }
}

/** SOAP 1.1 faults travel with HTTP 500; the typed ones carry the WSDL's fault element with a FaultMessage. */
function faultResponse(f: Fault): SoapResponse {
  const detail = f.detail
    ? `<detail><${f.detail} xmlns="${NS.lrs}"><FaultMessage>${escapeXml(f.message)}</FaultMessage></${f.detail}></detail>`
    : '';
  return { status: 500, body: soapEnvelope(`<S:Fault><faultcode>S:${f.code}</faultcode><faultstring>${escapeXml(f.message)}</faultstring>${detail}</S:Fault>`) };
}

const UNSUPPORTED = ['CreateList', 'DeleteList', 'PrepareMigrationRecord', 'CompleteMigrationRecord'];

export interface SoapOptions {
  pageSize: number;
  /** SMP ids callers may act for; any id when absent. */
  allowedSmpIds?: readonly string[];
}

/** The SOAP Body's element as a standalone document (xmldom re-declares the namespaces it uses). */
function bodyElementXml(xml: string): string {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const body = doc.getElementsByTagNameNS(NS.soap, 'Body')[0];
  let el = body?.firstChild ?? null;
  while (el && el.nodeType !== el.ELEMENT_NODE) el = el.nextSibling;
  if (!el) throw new Fault('Client', 'the SOAP Body is empty');
  return new XMLSerializer().serializeToString(el);
}

export async function handleSoap(registry: SmlRegistry, xml: string, soapActionHeader: string | undefined, opts: SoapOptions): Promise<SoapResponse> {
  try {
    let el: XmlElement | undefined;
    try {
      el = readSoapBody(xml);
    } catch (err) {
      const msg = (err as Error).message;
      throw new Fault(msg.startsWith('VersionMismatch') ? 'VersionMismatch' : 'Client', msg);
    }
    const op = (Object.keys(SML_OPERATIONS) as SmlOperation[]).find((o) => is(el, NS.lrs, SML_OPERATIONS[o].element));
    if (!op) {
      if (el?.ns === NS.lrs && UNSUPPORTED.includes(el.name)) throw new Fault('Client', `${el.name} is not supported by the SML simulator`);
      throw new Fault('Client', `unexpected body element ${el ? `{${el.ns ?? ''}}${el.name}` : '(empty)'}`);
    }
    const action = soapActionHeader?.replace(/^"(.*)"$/, '$1');
    if (action !== SML_OPERATIONS[op].soapAction) {
      throw new Fault('Client', `SOAPAction ${JSON.stringify(action ?? null)} does not match ${op} ("${SML_OPERATIONS[op].soapAction}")`);
    }
    const errors = await xsdErrors(bodyElementXml(xml), PEPPOL_XSD.sml);
    if (errors.length) throw new Fault('Client', `the ${el!.name} does not match ${PEPPOL_XSD.sml}: ${errors.join('; ')}`);
    const smpId = smpIdOf(el!.children[0]);
    if (opts.allowedSmpIds && !opts.allowedSmpIds.includes(smpId)) {
      throw new Fault('Client', `[ERR-105] The user is not authorized to act for the SMP '${smpId}'`, 'UnauthorizedFault');
    }
    const body = op === 'List' ? list(registry, el!, opts.pageSize) : participantOp(registry, op, el!);
    return { status: 200, body: soapEnvelope(body) };
  } catch (err) {
    if (err instanceof Fault) return faultResponse(err);
    return faultResponse(new Fault('Server', `internal error: ${(err as Error).message}`, 'InternalErrorFault'));
  }
}

function smpIdOf(el: XmlElement | undefined): string {
  if (!is(el, NS.lrs, 'ServiceMetadataPublisherID')) throw new Fault('Client', 'ServiceMetadataPublisherID expected first');
  if (!el.text) throw new Fault('Client', 'ServiceMetadataPublisherID is empty');
  return el.text;
}

function participantOp(registry: SmlRegistry, op: 'Create' | 'Delete', el: XmlElement): string {
  const [smpEl, pidEl, ...extra] = el.children;
  const smpId = smpIdOf(smpEl);
  if (!is(pidEl, NS.ids, 'ParticipantIdentifier') || extra.length) throw new Fault('Client', `${el.name} holds ServiceMetadataPublisherID then ParticipantIdentifier`);
  const scheme = pidEl.attrs.scheme;
  if (!scheme || !pidEl.text) throw new Fault('Client', 'ParticipantIdentifier needs a scheme attribute and a value');
  let id: string;
  try {
    if (scheme !== PARTICIPANT_SCHEME) throw new InvalidParticipantIdError(`unsupported participant identifier scheme "${scheme}"`);
    id = normaliseParticipantId(`${scheme}::${pidEl.text}`);
  } catch (err) {
    if (err instanceof InvalidParticipantIdError) throw new Fault('Client', `[ERR-106] ${err.message}`, 'BadRequestFault');
    throw err;
  }
  const owner = registry.owner(id);
  if (op === 'Create') {
    if (owner) throw new Fault('Client', `[ERR-106] The participant identifier '${id}' already exist`, 'BadRequestFault');
    registry.add(smpId, id);
  } else {
    if (owner !== smpId) throw new Fault('Client', `[ERR-100] The participant identifier '${id}' doesn't exist for the SMP '${smpId}'`, 'NotFoundFault');
    registry.remove(id);
  }
  return ''; // createOut and deleteOut have no part: an empty Body
}

function list(registry: SmlRegistry, el: XmlElement, pageSize: number): string {
  const [smpEl, nextEl, ...extra] = el.children;
  const smpId = smpIdOf(smpEl);
  if ((nextEl && !is(nextEl, NS.lrs, 'NextPageIdentifier')) || extra.length) throw new Fault('Client', 'PageRequest holds ServiceMetadataPublisherID then an optional NextPageIdentifier');
  const start = nextEl ? Number(nextEl.text) : 0;
  if (!Number.isInteger(start) || start < 0) throw new Fault('Client', `invalid NextPageIdentifier "${nextEl?.text}"`, 'BadRequestFault');
  const all = registry.of(smpId);
  const page = all.slice(start, start + pageSize);
  const ids = page.map((id) => {
    const [scheme, value] = id.split('::') as [string, string];
    return `<ids:ParticipantIdentifier scheme="${escapeXml(scheme)}">${escapeXml(value)}</ids:ParticipantIdentifier>`;
  });
  const next = start + pageSize < all.length ? `<lrs:NextPageIdentifier>${start + pageSize}</lrs:NextPageIdentifier>` : '';
  return `<lrs:ParticipantIdentifierPage xmlns:lrs="${NS.lrs}" xmlns:ids="${NS.ids}">${ids.join('')}` +
    `<lrs:ServiceMetadataPublisherID>${escapeXml(smpId)}</lrs:ServiceMetadataPublisherID>${next}</lrs:ParticipantIdentifierPage>`;
}
