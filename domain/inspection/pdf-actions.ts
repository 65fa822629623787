// Active content in a PDF, named for the signer: scripts, launch actions, embedded files, XFA, rich media, form
// submissions and imports, links to other files or to addresses that are not web pages, and actions that run by
// themselves other than a plain GoTo.
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFString, type PDFObject } from 'pdf-lib';

const name = (o: PDFObject | undefined) => (o instanceof PDFName ? o.decodeText() : undefined);

/** Adds to `found` what active content the dictionary holds (one object; the walk visits them all). */
export function findActive(d: PDFDict, found: Set<string>) {
  const s = name(d.get(PDFName.of('S')));
  if (s === 'JavaScript' || d.has(PDFName.of('JS')) || d.has(PDFName.of('JavaScript'))) found.add('JavaScript');
  if (s === 'Launch') found.add('a launch action');
  if (s === 'SubmitForm') found.add('a form submission');
  if (s === 'ImportData') found.add('a data import');
  if (s === 'GoToR' || s === 'GoToE') found.add(`a link to another file (${s})`);
  if (s === 'Rendition' || s === 'Sound' || s === 'Movie') found.add(`media (${s})`);
  if (s === 'URI') {
    const uri = d.lookup(PDFName.of('URI'));
    const text =
      uri instanceof PDFString || uri instanceof PDFHexString
        ? Buffer.from(uri.asBytes()).toString('latin1')
        : undefined;
    // A web address opens in a browser; anything else (javascript:, file:, a UNC path, data:…) is refused.
    if (text === undefined || !/^https?:\/\//i.test(text))
      found.add(`a link that is not a web address (${uriKind(text)})`);
  }
  if (
    d.has(PDFName.of('EmbeddedFiles')) ||
    d.has(PDFName.of('EF')) ||
    name(d.get(PDFName.of('Type'))) === 'EmbeddedFile'
  )
    found.add('an embedded file');
  if (name(d.get(PDFName.of('Subtype'))) === 'FileAttachment')
    found.add('an embedded file (file attachment annotation)');
  if (d.has(PDFName.of('XFA'))) found.add('an XFA form');
  if (name(d.get(PDFName.of('Subtype'))) === 'RichMedia') found.add('rich media');
  // Actions that run by themselves, on opening or on a page's or a field's events: only a plain GoTo is allowed.
  const open = d.lookup(PDFName.of('OpenAction'));
  if (open instanceof PDFDict) automatic(open, 'an action on opening', found);
  const aa = d.lookup(PDFName.of('AA'));
  if (aa instanceof PDFDict)
    for (const [, a] of aa.entries()) automatic(aa.context.lookup(a), 'an automatic action', found);
}

/** An action run without a click, and the actions it chains (/Next): refused unless all are GoTo. */
function automatic(action: PDFObject | undefined, what: string, found: Set<string>) {
  const seen = new Set<PDFObject>();
  const queue = [action];
  while (queue.length && seen.size < 64) {
    const a = queue.shift();
    if (!(a instanceof PDFDict) || seen.has(a)) continue;
    seen.add(a);
    const s = name(a.lookup(PDFName.of('S')));
    if (s !== 'GoTo' && !NAMED.has(s ?? '')) found.add(`${what} (${s ?? 'unnamed'})`);
    const next = a.lookup(PDFName.of('Next'));
    if (next instanceof PDFArray) queue.push(...next.asArray().map((n) => a.context.lookup(n)));
    else queue.push(next);
  }
}

/** Actions refused wherever they are, named for what they do. */
const NAMED = new Set([
  'JavaScript',
  'Launch',
  'SubmitForm',
  'ImportData',
  'GoToR',
  'GoToE',
  'Rendition',
  'Sound',
  'Movie',
]);

const uriKind = (uri: string | undefined) => {
  if (!uri) return 'no address';
  const scheme = /^\s*([a-z][a-z0-9+.-]{0,15}):/i.exec(uri)?.[1];
  if (scheme) return `${scheme.toLowerCase()}:`;
  return /^\s*[\\/]/.test(uri) ? 'a file path' : 'a relative address';
};
