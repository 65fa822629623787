// SMP 1.x documents (peppol-smp-types-v1-ext.xsd): ServiceGroup and the (unsigned) SignedServiceMetadata body.
// Built as strings: the shapes are fixed, and every value goes through escapeXml.
import { docGroup, isDocGroup, type DocumentTypeRef } from './doc-groups';
import { escapeXml } from './soap';

export const SMP_NS = {
  smp: 'http://busdox.org/serviceMetadata/publishing/1.0/',
  ids: 'http://busdox.org/transport/identifiers/1.0/',
  wsa: 'http://www.w3.org/2005/08/addressing',
} as const;

export const AS4_TRANSPORT_PROFILE = 'peppol-transport-as4-v2_0';

const XML_DECL = '<?xml version="1.0" encoding="UTF-8"?>\n';
const nsDecls = (...which: (keyof typeof SMP_NS)[]) => which.map((p) => ` xmlns:${p}="${SMP_NS[p]}"`).join('');

/** `scheme::value` percent-encoded as one path segment, as the SMP spec asks (`:` → %3A, `#` → %23). */
export const pathSegment = (scheme: string, value: string): string => encodeURIComponent(`${scheme}::${value}`);

/** The document types of the record's groups, deduplicated by id (their processes merged). */
export function documentTypes(groups: readonly string[]): DocumentTypeRef[] {
  const byId = new Map<string, DocumentTypeRef>();
  for (const g of groups) {
    if (!isDocGroup(g)) continue; // the activity validates groups; an old unknown one just publishes nothing
    for (const d of docGroup(g)) {
      const key = `${d.scheme}::${d.value}`;
      const seen = byId.get(key);
      if (!seen) byId.set(key, { ...d, processes: [...d.processes] });
      else
        for (const p of d.processes)
          if (!seen.processes.some((q) => q.scheme === p.scheme && q.value === p.value)) seen.processes.push(p);
    }
  }
  return [...byId.values()];
}

const participantXml = (scheme: string, value: string) =>
  `<ids:ParticipantIdentifier scheme="${escapeXml(scheme)}">${escapeXml(value)}</ids:ParticipantIdentifier>`;

export function serviceGroupXml(
  p: { scheme: string; value: string },
  docs: DocumentTypeRef[],
  smpBaseUrl: string,
): string {
  const base = smpBaseUrl.replace(/\/+$/, '');
  const refs = docs.map(
    (d) =>
      `<smp:ServiceMetadataReference href="${escapeXml(`${base}/${pathSegment(p.scheme, p.value)}/services/${pathSegment(d.scheme, d.value)}`)}"/>`,
  );
  return (
    `${XML_DECL}<smp:ServiceGroup${nsDecls('smp', 'ids')}>${participantXml(p.scheme, p.value)}` +
    `<smp:ServiceMetadataReferenceCollection>${refs.join('')}</smp:ServiceMetadataReferenceCollection></smp:ServiceGroup>`
  );
}

export interface EndpointInfo {
  url: string;
  /** Base64 DER of the AP certificate. */
  certificate: string;
  description: string;
  technicalContactUrl: string;
}

/** SignedServiceMetadata without its Signature yet (the signer appends it as the root's last child). */
export function serviceMetadataXml(
  p: { scheme: string; value: string },
  doc: DocumentTypeRef,
  ep: EndpointInfo,
): string {
  const endpoint =
    `<smp:Endpoint transportProfile="${AS4_TRANSPORT_PROFILE}">` +
    `<wsa:EndpointReference><wsa:Address>${escapeXml(ep.url)}</wsa:Address></wsa:EndpointReference>` +
    '<smp:RequireBusinessLevelSignature>false</smp:RequireBusinessLevelSignature>' +
    `<smp:Certificate>${ep.certificate}</smp:Certificate>` +
    `<smp:ServiceDescription>${escapeXml(ep.description)}</smp:ServiceDescription>` +
    `<smp:TechnicalContactUrl>${escapeXml(ep.technicalContactUrl)}</smp:TechnicalContactUrl></smp:Endpoint>`;
  const processes = doc.processes.map(
    (pr) =>
      `<smp:Process><ids:ProcessIdentifier scheme="${escapeXml(pr.scheme)}">${escapeXml(pr.value)}</ids:ProcessIdentifier>` +
      `<smp:ServiceEndpointList>${endpoint}</smp:ServiceEndpointList></smp:Process>`,
  );
  return (
    `${XML_DECL}<smp:SignedServiceMetadata${nsDecls('smp', 'ids', 'wsa')}><smp:ServiceMetadata><smp:ServiceInformation>` +
    participantXml(p.scheme, p.value) +
    `<ids:DocumentIdentifier scheme="${escapeXml(doc.scheme)}">${escapeXml(doc.value)}</ids:DocumentIdentifier>` +
    `<smp:ProcessList>${processes.join('')}</smp:ProcessList></smp:ServiceInformation></smp:ServiceMetadata></smp:SignedServiceMetadata>`
  );
}
