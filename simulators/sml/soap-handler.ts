// One SOAP 1.1 request of ManageBusinessIdentifierService → the response envelope (success or fault), like BDMSL.
// The body element is validated against peppol-sml-types-v1.xsd (as BDMSL's JAX-WS does: an invalid body is a
// plain soap:Client fault); an SMP id outside the allow-list, when one is set, gets an UnauthorizedFault (BDMSL
// ties each SMP id to the client certificate that created it).
import type { XmlDocument, XmlElement } from 'libxml2-wasm';
import { BadParticipantId, participantKey } from '../peppol-participant';
import { schemaErrors } from '../peppol-xsd';
import type { SmlRegistry } from './registry';
import { addNsElement, bodyElement, elements, envelope, Fault, faultEnvelope, parseEnvelope } from './soap';
import { NS, readOperations, SML_TYPES_XSD, type WsdlOperation } from './wsdl';

export interface SoapResponse {
  status: number;
  body: string;
}

export interface SoapOptions {
  pageSize: number;
  /** SMP ids callers may act for; any id when absent. */
  allowedSmpIds?: readonly string[];
}

// The WSDL's other operations (lists, migration) are refused as unsupported.
const IMPLEMENTED = ['Create', 'Delete', 'List'];
let operations: Map<string, WsdlOperation> | undefined;

/** SOAP 1.1 faults travel with HTTP 500. */
const faultResponse = (f: Fault): SoapResponse => ({ status: 500, body: faultEnvelope(f) });

export function handleSoap(
  registry: SmlRegistry,
  xml: string,
  soapActionHeader: string | undefined,
  opts: SoapOptions,
): SoapResponse {
  let doc: XmlDocument | undefined;
  try {
    doc = parseEnvelope(xml);
    const el = bodyElement(doc);
    if (!el) throw new Fault('Client', 'the SOAP Body is empty');
    const op = (operations ??= readOperations()).get(`{${el.namespaceUri}}${el.name}`);
    if (!op) throw new Fault('Client', `unexpected body element {${el.namespaceUri}}${el.name}`);
    if (!IMPLEMENTED.includes(op.name)) throw new Fault('Client', `${el.name} is not supported by the SML simulator`);
    const action = soapActionHeader?.replace(/^"(.*)"$/, '$1');
    if (action !== op.soapAction)
      throw new Fault(
        'Client',
        `SOAPAction ${JSON.stringify(action ?? null)} does not match ${op.name} ("${op.soapAction}")`,
      );
    const errors = schemaErrors(el, SML_TYPES_XSD);
    if (errors.length)
      throw new Fault('Client', `the ${el.name} does not match ${SML_TYPES_XSD}: ${errors.join('; ')}`);
    // The schema fixed the shape: ServiceMetadataPublisherID, then the participant or an optional NextPageIdentifier.
    const [smpEl, second] = elements(el) as [XmlElement, XmlElement | undefined];
    const smpId = smpEl.content.trim();
    if (!smpId) throw new Fault('Client', 'ServiceMetadataPublisherID is empty');
    if (opts.allowedSmpIds && !opts.allowedSmpIds.includes(smpId)) {
      throw new Fault(
        'Client',
        `[ERR-105] The user is not authorized to act for the SMP '${smpId}'`,
        'UnauthorizedFault',
      );
    }
    if (op.name === 'List')
      return { status: 200, body: envelope((body) => listPage(body, registry, smpId, second, opts.pageSize)) };
    participantOp(registry, op.name, smpId, second!);
    return { status: 200, body: envelope() }; // createOut and deleteOut have no part: an empty Body
  } catch (err) {
    if (err instanceof Fault) return faultResponse(err);
    return faultResponse(new Fault('Server', `internal error: ${(err as Error).message}`, 'InternalErrorFault'));
  } finally {
    doc?.dispose();
  }
}

function participantOp(registry: SmlRegistry, op: string, smpId: string, pidEl: XmlElement): void {
  const scheme = pidEl.attr('scheme')?.value;
  const value = pidEl.content.trim();
  if (!scheme || !value) throw new Fault('Client', 'ParticipantIdentifier needs a scheme attribute and a value');
  let id: string;
  try {
    id = participantKey(scheme, value);
  } catch (err) {
    if (err instanceof BadParticipantId) throw new Fault('Client', `[ERR-106] ${err.message}`, 'BadRequestFault');
    throw err;
  }
  const owner = registry.owner(id);
  if (op === 'Create') {
    if (owner)
      throw new Fault('Client', `[ERR-106] The participant identifier '${id}' already exist`, 'BadRequestFault');
    registry.add(smpId, id);
  } else {
    if (owner !== smpId)
      throw new Fault(
        'Client',
        `[ERR-100] The participant identifier '${id}' doesn't exist for the SMP '${smpId}'`,
        'NotFoundFault',
      );
    registry.remove(id);
  }
}

/** A ParticipantIdentifierPage; NextPageIdentifier is the offset of the next page. */
function listPage(
  body: XmlElement,
  registry: SmlRegistry,
  smpId: string,
  nextEl: XmlElement | undefined,
  pageSize: number,
): void {
  const start = nextEl ? Number(nextEl.content) : 0;
  if (!Number.isInteger(start) || start < 0)
    throw new Fault('Client', `invalid NextPageIdentifier "${nextEl?.content}"`, 'BadRequestFault');
  const all = registry.of(smpId);
  const page = addNsElement(body, 'ParticipantIdentifierPage', NS.lrs, 'lrs');
  page.addNsDeclaration(NS.ids, 'ids');
  for (const id of all.slice(start, start + pageSize)) {
    const [scheme, value] = id.split('::') as [string, string];
    const pid = page.addElement('ParticipantIdentifier', 'ids');
    pid.setAttr('scheme', scheme);
    pid.addText(value);
  }
  page.addElement('ServiceMetadataPublisherID', 'lrs').addText(smpId);
  if (start + pageSize < all.length) page.addElement('NextPageIdentifier', 'lrs').addText(String(start + pageSize));
}
