// One SOAP 1.1 request of ManageBusinessIdentifierService → the response envelope (success or fault), like BDMSL.
// The body's structure is checked by hand for now (XSD validation comes later).
import { InvalidParticipantIdError, normaliseParticipantId, PARTICIPANT_SCHEME } from '../../peppol/participant-id';
import {
  NS, SML_OPERATIONS, escapeXml, is, readSoapBody, soapEnvelope,
  type SmlFaultName, type SmlOperation, type XmlElement,
} from '../../peppol/sml-client';
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

export function handleSoap(registry: SmlRegistry, xml: string, soapActionHeader: string | undefined, pageSize: number): SoapResponse {
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
    const body = op === 'List' ? list(registry, el!, pageSize) : participantOp(registry, op, el!);
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
