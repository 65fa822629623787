// One SOAP 1.1 request of ManageBusinessIdentifierService → the response envelope (success or fault), like BDMSL.
// The body element is validated against peppol-sml-types-v1.xsd (as BDMSL's JAX-WS does: an invalid body is a
// plain soap:Client fault); an SMP id outside the allow-list, when one is set, gets an UnauthorizedFault (BDMSL
// ties each SMP id to the client certificate that created it).
//
// Migration (PrepareToMigrate by the owner, then Migrate by the new SMP with the same key); the WSDL declares all four
// faults on both operations, and these are answered:
//   both      a key outside the SML's rule (migrationKeyProblem), checked first               BadRequestFault
//   Prepare   participant unknown                                                               NotFoundFault
//             participant registered by another SMP                                         UnauthorizedFault
//   Migrate   participant unknown                                                               NotFoundFault
//             participant already the caller's                                                BadRequestFault
//             no migration prepared for it (never, or its key already spent)                    NotFoundFault
//             a migration prepared, but under another key                                   UnauthorizedFault
// As in BDMSL's source: the record is validated before anything is looked up, a Migrate with no migration record is
// its MigrationNotFoundException ("No migration record found…"), and another key than the prepared one its
// UnauthorizedException "The migration key doesn't match the expected one". A second PrepareToMigrate replaces the
// key; the owner keeps the participant (and lists it) until Migrate, after which the key is gone.
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

// The WSDL's other operations (CreateList, DeleteList) are refused as unsupported.
const IMPLEMENTED = ['Create', 'Delete', 'List', 'PrepareToMigrate', 'Migrate'];
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
    // The schema fixed the shape: ServiceMetadataPublisherID, then the participant (and, for a migration, the
    // MigrationKey) or an optional NextPageIdentifier.
    const [smpEl, second, third] = elements(el) as [XmlElement, XmlElement | undefined, XmlElement | undefined];
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
    if (op.name === 'PrepareToMigrate' || op.name === 'Migrate')
      migrationOp(registry, op.name, smpId, participantOf(second!), third!.content);
    else participantOp(registry, op.name, smpId, participantOf(second!));
    return { status: 200, body: envelope() }; // createOut, deleteOut, prepareMigrateOut, migrateOut: an empty Body
  } catch (err) {
    if (err instanceof Fault) return faultResponse(err);
    return faultResponse(new Fault('Server', `internal error: ${(err as Error).message}`, 'InternalErrorFault'));
  } finally {
    doc?.dispose();
  }
}

/** The normalised `scheme::value` of a ParticipantIdentifier element. */
function participantOf(pidEl: XmlElement): string {
  const scheme = pidEl.attr('scheme')?.value;
  const value = pidEl.content.trim();
  if (!scheme || !value) throw new Fault('Client', 'ParticipantIdentifier needs a scheme attribute and a value');
  try {
    return participantKey(scheme, value);
  } catch (err) {
    if (err instanceof BadParticipantId) throw new Fault('Client', `[ERR-106] ${err.message}`, 'BadRequestFault');
    throw err;
  }
}

function participantOp(registry: SmlRegistry, op: string, smpId: string, id: string): void {
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

/** The characters BDMSL counts as special in a migration key. */
export const MIGRATION_KEY_SPECIALS = '@#$%()[]{}*^_-!~|+=';

/**
 * Why BDMSL refuses this migration key, or undefined when it takes it. The WSDL only says xs:string; BDMSL wants 8 to
 * 24 characters (UTF-16 units, as Java counts them), no blank, and at least two upper-case letters, two lower-case
 * letters, two digits and two of MIGRATION_KEY_SPECIALS; other characters may fill the rest. The key is taken
 * verbatim (xs:string keeps its blanks, so a key with surrounding blanks is refused, not trimmed).
 */
export function migrationKeyProblem(key: string): string | undefined {
  if (key.length < 8 || key.length > 24) return `it has ${key.length} characters, not 8 to 24`;
  if (/\s/.test(key)) return 'it contains blanks';
  const count = (re: RegExp) => key.match(re)?.length ?? 0;
  const missing = [
    count(/[A-Z]/g) < 2 && 'two upper-case letters',
    count(/[a-z]/g) < 2 && 'two lower-case letters',
    count(/[0-9]/g) < 2 && 'two digits',
    count(/[@#$%()[\]{}*^_\-!~|+=]/g) < 2 && `two special characters (${MIGRATION_KEY_SPECIALS})`,
  ].filter((m): m is string => typeof m === 'string');
  return missing.length ? `it lacks ${missing.join(', ')}` : undefined;
}

/** PrepareToMigrate and Migrate; the faults are listed at the top of this file. The key never appears in a fault. */
function migrationOp(
  registry: SmlRegistry,
  op: 'PrepareToMigrate' | 'Migrate',
  smpId: string,
  id: string,
  key: string,
): void {
  const problem = migrationKeyProblem(key);
  if (problem)
    throw new Fault(
      'Client',
      `[ERR-106] The migration key does not follow the SML rules (8 to 24 characters without blanks, at least two ` +
        `upper-case letters, two lower-case letters, two digits and two of ${MIGRATION_KEY_SPECIALS}): ${problem}`,
      'BadRequestFault',
    );
  const owner = registry.owner(id);
  if (!owner) throw new Fault('Client', `[ERR-100] The participant identifier '${id}' doesn't exist`, 'NotFoundFault');
  if (op === 'PrepareToMigrate') {
    if (owner !== smpId)
      throw new Fault(
        'Client',
        `[ERR-105] The SMP '${smpId}' is not the owner of the participant identifier '${id}' and cannot prepare its migration`,
        'UnauthorizedFault',
      );
    registry.prepareMigration(id, smpId, key);
    return;
  }
  if (owner === smpId)
    throw new Fault(
      'Client',
      `[ERR-106] The participant identifier '${id}' already belongs to the SMP '${smpId}': there is nothing to migrate`,
      'BadRequestFault',
    );
  const pending = registry.pendingMigration(id);
  if (!pending || pending.smpId !== owner)
    throw new Fault(
      'Client',
      `[ERR-100] No migration is prepared for the participant identifier '${id}': its SMP calls PrepareToMigrate before the new SMP calls Migrate`,
      'NotFoundFault',
    );
  if (pending.key !== key)
    throw new Fault('Client', "[ERR-105] The migration key doesn't match the expected one", 'UnauthorizedFault');
  registry.completeMigration(id, smpId);
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
  const { ids, total } = registry.page(smpId, start, pageSize); // a slice of the SMP's sorted index
  const page = addNsElement(body, 'ParticipantIdentifierPage', NS.lrs, 'lrs');
  page.addNsDeclaration(NS.ids, 'ids');
  for (const id of ids) {
    const [scheme, value] = id.split('::') as [string, string];
    const pid = page.addElement('ParticipantIdentifier', 'ids');
    pid.setAttr('scheme', scheme);
    pid.addText(value);
  }
  page.addElement('ServiceMetadataPublisherID', 'lrs').addText(smpId);
  if (start + pageSize < total) page.addElement('NextPageIdentifier', 'lrs').addText(String(start + pageSize));
}
