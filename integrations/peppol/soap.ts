// SOAP 1.1 on the wire: an envelope's Body read with namespaces resolved (fast-xml-parser keeps prefixes; they are
// resolved against the xmlns declarations in scope), and the escaping and envelope our requests are written with.
import { XMLParser, XMLValidator } from 'fast-xml-parser';

export const NS = {
  soap: 'http://schemas.xmlsoap.org/soap/envelope/',
  lrs: 'http://busdox.org/serviceMetadata/locator/1.0/',
  ids: 'http://busdox.org/transport/identifiers/1.0/',
} as const;

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

/**
 * Text as XML 1.0 character data. A character XML cannot carry (a C0 control but tab and line breaks, a lone
 * surrogate, U+FFFE/U+FFFF) becomes U+FFFD rather than make the whole document unreadable; the party schema refuses
 * them anyway, so only a document stored before it could hold one.
 */
export const escapeXml = (s: string): string =>
  s
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

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
