// What the SML simulator takes from ManageBusinessIdentifierService-1.0.wsdl: for each operation, its body element
// and its soapAction, read from the WSDL itself so that the simulator answers what the document says (the
// soapActions' nine blanks included, which BDMSL matches verbatim).
import fs from 'node:fs';
import { XmlAttribute, XmlDocument } from 'libxml2-wasm';
import { PEPPOL_SPEC_DIR } from '../peppol-xsd';

export const NS = {
  soap: 'http://schemas.xmlsoap.org/soap/envelope/',
  lrs: 'http://busdox.org/serviceMetadata/locator/1.0/',
  ids: 'http://busdox.org/transport/identifiers/1.0/',
} as const;

/** The schema of the messages' body elements, in spec/peppol. */
export const SML_TYPES_XSD = 'peppol-sml-types-v1.xsd';

/** The WSDL leaves the address open; BDMSL serves this service at this path of its management URL. */
export const SML_SERVICE_PATH = '/manageparticipantidentifier';

/** The typed faults the WSDL declares for every operation. */
export type SmlFault = 'BadRequestFault' | 'NotFoundFault' | 'UnauthorizedFault' | 'InternalErrorFault';

export interface WsdlOperation {
  name: string;
  soapAction: string;
}

const WSDL_NS = { w: 'http://schemas.xmlsoap.org/wsdl/', soap: 'http://schemas.xmlsoap.org/wsdl/soap/' };

/** Operations by the `{namespace}name` of their input element. */
export function readOperations(
  file = `${PEPPOL_SPEC_DIR}ManageBusinessIdentifierService-1.0.wsdl`,
): Map<string, WsdlOperation> {
  const doc = XmlDocument.fromBuffer(fs.readFileSync(file));
  try {
    const value = (xpath: string) => {
      const node = doc.get(xpath, WSDL_NS);
      if (!(node instanceof XmlAttribute)) throw new Error(`${file}: nothing at ${xpath}`);
      return node.value;
    };
    const local = (qname: string) => qname.slice(qname.indexOf(':') + 1);
    const ops = new Map<string, WsdlOperation>();
    for (const node of doc.find('/w:definitions/w:binding/w:operation/@name', WSDL_NS)) {
      const name = (node as XmlAttribute).value;
      const soapAction = value(`/w:definitions/w:binding/w:operation[@name='${name}']/soap:operation/@soapAction`);
      const message = value(`/w:definitions/w:portType/w:operation[@name='${name}']/w:input/@message`);
      const element = value(`/w:definitions/w:message[@name='${local(message)}']/w:part/@element`);
      const prefix = element.slice(0, element.indexOf(':'));
      ops.set(`{${doc.root.namespaces[prefix]}}${local(element)}`, { name, soapAction });
    }
    return ops;
  } finally {
    doc.dispose();
  }
}
