// A campaign file read as it arrives, never whole in memory: the bytes are hashed and cut into lines; each line must
// be UTF-8 (a file saved in Excel's Windows-1252 or UTF-16 is refused, naming the first line that is not); a CSV
// is read a line at a time by csv-parse (`;` or `,`, as its header uses, quoted cells, a BOM), a JSON-lines file one
// JSON object a line. What makes the whole file unreadable (its encoding, its size, its header) refuses it; what is wrong with
// one record is that record's fault, and the rest is read.
import crypto from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { parse, type Options } from 'csv-parse/sync';
import { DomainError } from '../errors';
import { CAMPAIGN_COLUMNS, REQUIRED_COLUMNS, columnName, type RowFault } from './row';

export type CampaignFileFormat = 'csv' | 'jsonl';

export interface FileLimits {
  maxBytes: number;
  maxRows: number;
}

/** A line is one company: a few hundred bytes, far fewer than this. */
export const MAX_LINE_BYTES = 64 * 1024;

/** One record of the file: its first line, and its cells by column or why it could not be read. */
export type FileRecord = { line: number; record: Record<string, unknown> } | { line: number; faults: RowFault[] };

/** What the file was, known once it is read to the end. */
export interface FileTally {
  sha256: string;
  bytes: number;
  rows: number;
}

const refuse = (code: string, message: string, sizeLimit = false) =>
  new DomainError(code, message, sizeLimit ? { sizeLimit: true } : {});

const SAVE_AS_UTF8 = 'save the file as "CSV UTF-8" (Excel: File › Save As › CSV UTF-8 (comma delimited))';
const NOT_UTF8 = `is not UTF-8: ${SAVE_AS_UTF8}, or convert it with iconv -f WINDOWS-1252 -t UTF-8`;
const UTF16 = `the file is UTF-16, not UTF-8: ${SAVE_AS_UTF8}, or convert it with iconv -f UTF-16 -t UTF-8`;

/** The file's lines as text, each checked for its encoding and length, the bytes counted and hashed on the way. */
async function* linesOf(source: AsyncIterable<Uint8Array>, limits: FileLimits, hash: crypto.Hash, tally: FileTally) {
  let carry = Buffer.alloc(0);
  let line = 0;
  const decode = (bytes: Buffer): string => {
    line += 1;
    const body = bytes.at(-1) === 0x0d ? bytes.subarray(0, -1) : bytes;
    if (body.length > MAX_LINE_BYTES)
      throw refuse('invalid-file', `line ${line} is longer than ${MAX_LINE_BYTES} bytes: one company a line`);
    if (!isUtf8(body)) throw refuse('bad-encoding', `line ${line} ${NOT_UTF8}`);
    if (line === 1 && looksUtf16(body)) throw refuse('bad-encoding', UTF16);
    return body.toString('utf8');
  };
  for await (const chunk of source) {
    tally.bytes += chunk.length;
    if (tally.bytes > limits.maxBytes)
      throw refuse('too-large', `the file is larger than ${limits.maxBytes} bytes (CAMPAIGN_FILE_MAX_BYTES)`, true);
    hash.update(chunk);
    let buf = carry.length ? Buffer.concat([carry, chunk]) : Buffer.from(chunk);
    if (line === 0 && tally.bytes === buf.length) {
      if (buf[0] === 0xff || buf[0] === 0xfe) throw refuse('bad-encoding', UTF16);
      if (buf.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))) buf = buf.subarray(3);
    }
    let start = 0;
    for (let nl = buf.indexOf(0x0a); nl !== -1; nl = buf.indexOf(0x0a, start)) {
      yield decode(buf.subarray(start, nl));
      start = nl + 1;
    }
    carry = buf.subarray(start);
    if (carry.length > MAX_LINE_BYTES + 1)
      throw refuse('invalid-file', `line ${line + 1} is longer than ${MAX_LINE_BYTES} bytes: one company a line`);
  }
  if (carry.length) yield decode(carry);
}

/** UTF-16 without its byte-order mark (valid UTF-8 too): a header's letters, every other byte 0. */
function looksUtf16(bytes: Buffer): boolean {
  const head = bytes.subarray(0, 8);
  if (head.length < 4) return false;
  const zeroAt = (parity: number) => head.every((b, i) => (i % 2 === parity) === (b === 0));
  return zeroAt(0) || zeroAt(1);
}

/** The header's delimiter: `;` (Excel in French) or `,`, whichever separates more cells outside quotes. */
function delimiterOf(header: string): ';' | ',' {
  let inQuotes = false;
  let semicolons = 0;
  let commas = 0;
  for (const ch of header) {
    if (ch === '"') inQuotes = !inQuotes;
    else if (!inQuotes && ch === ';') semicolons++;
    else if (!inQuotes && ch === ',') commas++;
  }
  return semicolons >= commas && semicolons > 0 ? ';' : ',';
}

/** The header's cells as columns, or the refusal naming what is unknown, missing or twice. */
function columnsOf(cells: string[]): string[] {
  const columns = cells.map(columnName);
  const unknown = columns.filter((c) => c !== '' && !(CAMPAIGN_COLUMNS as readonly string[]).includes(c));
  const missing = REQUIRED_COLUMNS.filter((c) => !columns.includes(c));
  const twice = columns.filter((c, i) => c !== '' && columns.indexOf(c) !== i);
  const faults = [
    unknown.length && `unknown column${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`,
    missing.length && `missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`,
    twice.length && `column${twice.length > 1 ? 's' : ''} ${twice.join(', ')} given twice`,
  ].filter(Boolean);
  if (faults.length)
    throw refuse(
      'invalid-file',
      `line 1, the header: ${faults.join('; ')}. The columns are ${CAMPAIGN_COLUMNS.join(', ')} (the first ${REQUIRED_COLUMNS.length} required)`,
    );
  return columns;
}

/**
 * The records of a campaign file, in order; `tally` holds its hash, size and row count once they are all read.
 * Refuses (DomainError) a file that cannot be read as one: its encoding, its size, its rows' number, its header.
 */
export async function* readCampaignFile(
  source: AsyncIterable<Uint8Array>,
  format: CampaignFileFormat,
  limits: FileLimits,
  tally: FileTally,
): AsyncGenerator<FileRecord> {
  const hash = crypto.createHash('sha256');
  const lines = linesOf(source, limits, hash, tally);
  const counted = function* <T extends FileRecord>(r: T) {
    tally.rows += 1;
    if (tally.rows > limits.maxRows)
      throw refuse('too-large', `the file has more than ${limits.maxRows} rows: split it into campaigns`, true);
    yield r;
  };
  if (format === 'jsonl') {
    let line = 0;
    let seen = false;
    for await (const text of lines) {
      line += 1;
      if (text.trim() === '') continue;
      // A CSV sent as JSON lines: its every row would be at fault.
      if (!seen && looksLikeCsvHeader(text))
        throw refuse('invalid-file', `line ${line} is a CSV header: send a CSV as text/csv, not application/jsonl`);
      seen = true;
      yield* counted(jsonRecord(text, line));
    }
  } else {
    yield* csvRecords(lines, counted);
  }
  tally.sha256 = hash.digest('hex');
  if (tally.rows === 0) throw refuse('empty', 'the file holds no company: a header row, then one company a row');
}

/** A line naming the `siren` column between delimiters, as a CSV's header does (a JSON object never). */
const looksLikeCsvHeader = (text: string) =>
  !text.trimStart().startsWith('{') &&
  text
    .split(/[;,]/)
    .map((cell) => cell.trim().replace(/^"|"$/g, '').toLowerCase())
    .includes('siren');

function jsonRecord(text: string, line: number): FileRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { line, faults: [{ column: 'row', message: `not JSON: ${(err as Error).message}` }] };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { line, faults: [{ column: 'row', message: 'a JSON object, one company a line' }] };
  const unknown = Object.keys(value).filter((k) => !(CAMPAIGN_COLUMNS as readonly string[]).includes(k));
  if (unknown.length)
    return {
      line,
      faults: [{ column: 'row', message: `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}` }],
    };
  return { line, record: value as Record<string, unknown> };
}

async function* csvRecords(
  lines: AsyncGenerator<string>,
  counted: (r: FileRecord) => Generator<FileRecord>,
): AsyncGenerator<FileRecord> {
  // One company a line: each line is parsed on its own, so that a quote left open is that line's fault and never
  // swallows the lines after it (a cell holding a line break would be refused anyway: no control characters).
  let options: Options | undefined;
  let columns: string[] | undefined;
  let seenRow = false;
  let line = 0;
  for await (const text of lines) {
    line += 1;
    if (text.trim() === '') continue;
    options ??= {
      delimiter: delimiterOf(text),
      relax_column_count: true,
      // A quote inside an unquoted cell is a character (L"Atelier), as a spreadsheet reads it.
      relax_quotes: true,
    };
    let cells: string[];
    try {
      cells = (parse(text, options) as string[][])[0] ?? [];
    } catch (err) {
      const message = `not CSV: ${(err as Error).message.replace(/ at line 1\b/, '')}`;
      if (!columns) throw refuse('invalid-file', `line ${line}, the header, is ${message}`);
      yield* counted({ line, faults: [{ column: 'row', message }] });
      continue;
    }
    if (!columns) {
      if (text.trimStart().startsWith('{'))
        throw refuse(
          'invalid-file',
          `line ${line} is a JSON object: send JSON lines as application/jsonl, not text/csv`,
        );
      columns = columnsOf(cells);
      continue;
    }
    if (!seenRow) {
      seenRow = true;
      refuseMixedDelimiters(text, cells, columns.length, options.delimiter as ';' | ',', line);
    }
    if (cells.length > columns.length)
      yield* counted({
        line,
        faults: [{ column: 'row', message: `${cells.length} cells, but the header has ${columns.length}` }],
      });
    else yield* counted({ line, record: Object.fromEntries(columns.map((c, i) => [c, cells[i] ?? ''])) });
  }
}

/**
 * A first row that is one cell holding the other delimiter as often as the header has columns (a `,` header pasted
 * over `;` rows): every row would lack its cells, so the file is refused as one.
 */
function refuseMixedDelimiters(text: string, cells: string[], columns: number, delimiter: ';' | ',', line: number) {
  const other = delimiter === ';' ? ',' : ';';
  if (cells.length === 1 && columns > 1 && text.split(other).length >= columns)
    throw refuse(
      'invalid-file',
      `line ${line} separates its cells with "${other}" but the header with "${delimiter}": use one delimiter throughout`,
    );
}
