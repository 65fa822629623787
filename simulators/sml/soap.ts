// SOAP 1.1 envelopes for the SML simulator, read and written with libxml2 (libxml2-wasm): the request's one Body
// element, and response envelopes (success or fault) built by the library, which does the escaping.
import { XmlDocument, XmlElement, type XmlLibError } from 'libxml2-wasm';
import { NS, type SmlFault } from './wsdl';

export class Fault extends Error {
  constructor(
    readonly code: 'Client' | 'Server' | 'VersionMismatch',
    message: string,
    readonly detail?: SmlFault,
  ) {
    super(message);
  }
}

export const elements = (parent: XmlElement): XmlElement[] => {
  const out: XmlElement[] = [];
  for (let n = parent.firstChild; n; n = n.next) if (n instanceof XmlElement) out.push(n);
  return out;
};

const is = (el: XmlElement | undefined, ns: string, name: string): el is XmlElement =>
  el?.namespaceUri === ns && el.name === name;

/** A child element in namespace `ns`, declared on it (as the default namespace without a prefix). */
export function addNsElement(parent: XmlElement, name: string, ns: string, prefix = ''): XmlElement {
  const el = parent.addElement(name);
  el.addNsDeclaration(ns, prefix || undefined);
  el.prefix = prefix;
  return el;
}

/** A response envelope; `fill` writes into its Body (an empty Body when absent). */
export function envelope(fill: (body: XmlElement) => void = () => {}): string {
  const doc = XmlDocument.create();
  try {
    fill(doc.createRoot('Envelope', NS.soap, 'S').addElement('Body', 'S'));
    return doc.toString({ format: false });
  } finally {
    doc.dispose();
  }
}

/** The fault's envelope; a typed fault carries the WSDL's fault element with a FaultMessage in its detail. */
export const faultEnvelope = (f: Fault): string =>
  envelope((body) => {
    const fault = body.addElement('Fault', 'S');
    fault.addElement('faultcode').addText(`S:${f.code}`);
    fault.addElement('faultstring').addText(f.message);
    if (f.detail)
      addNsElement(fault.addElement('detail'), f.detail, NS.lrs).addElement('FaultMessage').addText(f.message);
  });

/** The parsed request; the caller disposes of it. */
export function parseEnvelope(xml: string): XmlDocument {
  let doc: XmlDocument;
  try {
    doc = XmlDocument.fromString(xml);
  } catch (err) {
    const details = (err as XmlLibError).details?.map((d) => d.message.trim()).join('; ');
    throw new Fault('Client', `not well-formed XML: ${details || (err as Error).message}`);
  }
  if (doc.dtd) {
    doc.dispose();
    throw new Fault('Client', 'a DOCTYPE is not allowed in a SOAP message'); // SOAP 1.1 §3
  }
  return doc;
}

/** The Body's one element (undefined when empty), once the envelope is checked to be SOAP 1.1. */
export function bodyElement(doc: XmlDocument): XmlElement | undefined {
  const env = doc.root;
  if (env.name !== 'Envelope') throw new Fault('Client', `root element is ${env.name}, not a SOAP Envelope`);
  if (env.namespaceUri !== NS.soap)
    throw new Fault('VersionMismatch', `envelope namespace ${env.namespaceUri || '(none)'} is not SOAP 1.1`);
  const kids = elements(env);
  const start = is(kids[0], NS.soap, 'Header') ? 1 : 0;
  const body = kids[start];
  if (!is(body, NS.soap, 'Body') || kids.length !== start + 1)
    throw new Fault('Client', 'a SOAP Envelope holds an optional Header then exactly one Body');
  const inner = elements(body);
  if (inner.length > 1) throw new Fault('Client', 'the SOAP Body holds more than one element');
  return inner[0];
}
