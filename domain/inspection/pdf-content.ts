// Long file: one content-stream interpreter, byte by byte, whose counting and dispatch must stay in one loop to stop
// at the first count over a limit.
// Just enough of a content-stream interpreter to see where images are drawn: the graphics state's matrix (q, Q, cm),
// XObjects (Do) and inline images (BI … ID … EI); patterns (scn, SCN) and graphics states (gs) for what glyphs of
// Type 3 fonts draw. Everything else is skipped, but every operator is counted (ContentBudget).
import { LimitError } from './limits';

export type Matrix = [number, number, number, number, number, number];
export const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

export function multiply(m: Matrix, c: Matrix): Matrix {
  return [
    m[0] * c[0] + m[1] * c[2],
    m[0] * c[1] + m[1] * c[3],
    m[2] * c[0] + m[3] * c[2],
    m[2] * c[1] + m[3] * c[3],
    m[4] * c[0] + m[5] * c[2] + c[4],
    m[4] * c[1] + m[5] * c[3] + c[5],
  ];
}

/** The axis-aligned box of the unit square (where an image is drawn) under `m`. */
export function unitSquareBox(m: Matrix): { x0: number; y0: number; x1: number; y1: number } {
  const xs = [m[4], m[0] + m[4], m[2] + m[4], m[0] + m[2] + m[4]];
  const ys = [m[5], m[1] + m[5], m[3] + m[5], m[1] + m[3] + m[5]];
  return { x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) };
}

export interface ContentVisitor {
  /** `/name Do` under the matrix `ctm` */
  xobject(name: string, ctm: Matrix): void;
  /** an inline image of `pixels` pixels */
  inlineImage(ctm: Matrix, pixels: number): void;
  /** an operator, `paints` when it paints (PAINTING) */
  operator(paints: boolean): void;
  /**
   * What was just read costs `operations` (an operator: 1, `'` 2 and `"` 4, the operators they stand for; an element
   * of an array operand, a glyph run or a move of TJ: 1) and `textBytes` (a string's bytes). Throws over a limit,
   * which stops the reading there.
   */
  cost(operations: number, textBytes: number): void;
  /** `/name scn` or `/name SCN` (a pattern), `/name gs` (a graphics state) */
  resource?(kind: 'Pattern' | 'ExtGState', name: string): void;
}

/**
 * What reading content may cost, on one page (its content, its forms each time drawn, its annotations' appearances;
 * the glyphs of a Type 3 font count as a page of their own) and in the whole document (with the revisions its digital
 * signatures signed): operations (ContentVisitor.cost, and STREAM_OPERATIONS a stream read), bytes of strings,
 * bytes of content streams.
 */
export interface ContentLimits {
  pageOperators: number;
  operators: number;
  pageTextBytes: number;
  textBytes: number;
  pageContentBytes: number;
  contentBytes: number;
}

/** What starting to read a content stream counts, in operations (ContentBudget.content). */
export const STREAM_OPERATIONS = 16;

const KB = (n: number) => (n % 1024 ? `${n} bytes` : `${n / 1024} KB`);

/**
 * Counts what content reading costs, per page and in all, and stops it (LimitError) the moment a count passes its
 * limit: a stream's bytes before it is read, operations and strings as they are met. pdf.js reads the same content
 * again for the text: its time grows with these counts, so they bound it too.
 */
export class ContentBudget {
  private all = { operations: 0, textBytes: 0, contentBytes: 0 };
  private page = { operations: 0, textBytes: 0, contentBytes: 0 };
  private what = 'a page';
  /** Type 3 fonts whose glyphs were counted: once per document, as pdf.js loads a font once */
  readonly fontsSeen = new Set<object>();

  constructor(readonly limits: ContentLimits) {}

  /** What follows is counted for one page (`what`: how a refusal names it). */
  startPage(what = 'a page') {
    this.page = { operations: 0, textBytes: 0, contentBytes: 0 };
    this.what = what;
  }

  /** `read` counted as a page of its own (`what` names it in a refusal), and in all; then the page's counting goes on. */
  apart<T>(what: string, read: () => T): T {
    const [page, was] = [this.page, this.what];
    this.startPage(what);
    try {
      return read();
    } finally {
      [this.page, this.what] = [page, was];
    }
  }

  /** See ContentVisitor.cost. */
  add(operations: number, textBytes: number): void {
    const { limits: l, page, all } = this;
    if ((page.operations += operations) > l.pageOperators)
      this.over(`${this.what} has more than ${l.pageOperators} drawing operations`);
    if ((all.operations += operations) > l.operators) this.over(`it has more than ${l.operators} drawing operations`);
    if (!textBytes) return;
    if ((page.textBytes += textBytes) > l.pageTextBytes)
      this.over(`${this.what} has more than ${KB(l.pageTextBytes)} of text strings`);
    if ((all.textBytes += textBytes) > l.textBytes) this.over(`it has more than ${KB(l.textBytes)} of text strings`);
  }

  /**
   * A content stream of `n` bytes about to be read: its bytes, and STREAM_OPERATIONS operations (pdf.js spends as
   * much to start reading a form, a glyph's procedure or a page as on so many operators).
   */
  content(n: number): void {
    this.add(STREAM_OPERATIONS, 0);
    const { limits: l, page, all } = this;
    if ((page.contentBytes += n) > l.pageContentBytes)
      this.over(`${this.what} has more than ${KB(l.pageContentBytes)} of drawing instructions`);
    if ((all.contentBytes += n) > l.contentBytes)
      this.over(`it has more than ${KB(l.contentBytes)} of drawing instructions`);
  }

  /** what the document's content cost so far */
  get counted() {
    return { ...this.all };
  }

  private over(what: string): never {
    throw new LimitError('structure', `${what} (the limit)`);
  }
}

const WHITE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIM = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);

/** An operator of at most 3 bytes as a number, its bytes first lowest (interpret makes longer ones -1: none we act on). */
const code = (op: string) => [...op].reduceRight((n, ch) => n * 256 + ch.charCodeAt(0), 0);
const [Q_PUSH, Q_POP, CM, DO, BI] = [code('q'), code('Q'), code('cm'), code('Do'), code('BI')];
const [SCN, SCN_STROKE, GS, QUOTE, DOUBLE_QUOTE] = [code('scn'), code('SCN'), code('gs'), code("'"), code('"')];
/** Operators that paint: paths stroked or filled, text, images and forms, shadings. */
const PAINTING = new Set(
  ['S', 's', 'f', 'F', 'f*', 'B', 'B*', 'b', 'b*', 'Tj', 'TJ', "'", '"', 'Do', 'BI', 'sh'].map(code),
);

/**
 * Reads a content stream byte by byte, as one pass: each operator, string and array element is counted as it is met
 * (`visit.cost`, which throws over a limit: nothing after it is read), and only the few operators a check needs are
 * acted on. Operands are not
 * kept, only where the last six stand (for `cm`) and the last name (for `Do`): no string or number is made for
 * the others, so a stream of millions of operators is read at the speed of its bytes.
 */
export function interpret(content: Uint8Array, start: Matrix, visit: ContentVisitor): void {
  const s = content;
  const end = s.length;
  let i = 0;
  let ctm = start;
  const stack: Matrix[] = [];
  // The operands since the last operator: how many, where the last six numbers stand (-1: not a number), the last name.
  let operands = 0;
  const numFrom = new Int32Array(6);
  const numTo = new Int32Array(6);
  let nameFrom = -1;
  let nameTo = -1;
  /** how deep in array operands (a TJ's) the reading is: each element counts as an operation */
  let arrays = 0;
  const operand = (from: number, to: number, isNumber: boolean, textBytes = 0) => {
    const k = operands++ % 6;
    numFrom[k] = isNumber ? from : -1;
    numTo[k] = to;
    nameFrom = -1;
    if (arrays > 0 || textBytes > 0) visit.cost(arrays > 0 ? 1 : 0, textBytes);
  };
  while (i < end) {
    const c = s[i]!;
    const kind = KIND[c];
    if (kind === 1) {
      i++;
      continue;
    }
    if (c === 0x25) {
      while (i < end && s[i] !== 0x0a && s[i] !== 0x0d) i++;
      continue;
    } // % comment
    if (c === 0x2f) {
      const from = ++i;
      while (i < end && KIND[s[i]!] === 0) i++;
      operand(from, i, false);
      [nameFrom, nameTo] = [from, i];
      continue;
    } // name
    if (c === 0x28) {
      // (string), nested parentheses, backslash escapes
      const from = i;
      let depth = 0;
      for (; i < end; i++) {
        if (s[i] === 0x5c) {
          i++;
          continue;
        }
        if (s[i] === 0x28) depth++;
        else if (s[i] === 0x29 && --depth === 0) {
          i++;
          break;
        }
      }
      operand(i, i, false, Math.max(1, i - from - 2));
      continue;
    }
    if (c === 0x3c && s[i + 1] !== 0x3c) {
      const from = i;
      while (i < end && s[i] !== 0x3e) i++;
      i++;
      operand(i, i, false, Math.max(1, (i - from - 2) >> 1));
      continue;
    } // <hex>
    if (c === 0x3c || c === 0x3e) {
      i += 2;
      continue;
    } // << >>: a dictionary operand (marked content), not needed
    if (kind === 2) {
      if (c === 0x5b) arrays++;
      else if (c === 0x5d && arrays > 0) arrays--;
      i++;
      continue;
    } // [ ] { } and stray delimiters
    const from = i;
    while (i < end && KIND[s[i]!] === 0) i++;
    if (isNumber(s, from, i)) {
      operand(from, i, true);
      continue;
    }
    const len = i - from;
    const op =
      len === 1
        ? c
        : len === 2
          ? c | (s[from + 1]! << 8)
          : len === 3
            ? c | (s[from + 1]! << 8) | (s[from + 2]! << 16)
            : -1;
    visit.cost(op === QUOTE ? 2 : op === DOUBLE_QUOTE ? 4 : 1, 0);
    visit.operator(PAINTING.has(op));
    if (op === Q_PUSH) stack.push(ctm);
    else if (op === Q_POP) ctm = stack.pop() ?? ctm;
    else if (op === CM && operands >= 6) {
      const m: number[] = [];
      for (let k = operands - 6; k < operands; k++) {
        const at = numFrom[k % 6]!;
        m.push(at < 0 ? NaN : Number(latin1(s, at, numTo[k % 6]!)));
      }
      if (m.every((x) => Number.isFinite(x))) ctm = multiply(m as Matrix, ctm);
    } else if (op === DO && nameFrom >= 0) visit.xobject(latin1(s, nameFrom, nameTo), ctm);
    else if ((op === SCN || op === SCN_STROKE) && nameFrom >= 0)
      visit.resource?.('Pattern', latin1(s, nameFrom, nameTo));
    else if (op === GS && nameFrom >= 0) visit.resource?.('ExtGState', latin1(s, nameFrom, nameTo));
    else if (op === BI) i = inlineImage(s, i, ctm, visit);
    operands = 0;
    nameFrom = -1;
    arrays = 0;
  }
}

const latin1 = (s: Uint8Array, from: number, to: number) =>
  Buffer.from(s.buffer, s.byteOffset + from, to - from).toString('latin1');

/** Whether bytes `from`–`to` are a number as a content stream writes it: [+-] digits [. digits], or [+-] . digits. */
function isNumber(s: Uint8Array, from: number, to: number): boolean {
  let i = from;
  if (s[i] === 0x2b || s[i] === 0x2d) i++;
  let digits = 0;
  for (; i < to && s[i]! >= 0x30 && s[i]! <= 0x39; i++) digits++;
  if (i < to && s[i] === 0x2e) {
    i++;
    for (; i < to && s[i]! >= 0x30 && s[i]! <= 0x39; i++) digits++;
  }
  return i === to && digits > 0;
}

/** Reads an inline image's parameters, skips its data, and returns the position after EI. */
function inlineImage(s: Uint8Array, from: number, ctm: Matrix, visit: ContentVisitor): number {
  const id = indexOfWord(s, 'ID', from);
  if (id < 0) return s.length;
  visit.inlineImage(ctm, inlineImageAt(s, from, id).pixels);
  const ei = indexOfWord(s, 'EI', id + 3);
  return ei < 0 ? s.length : ei + 2;
}

const KIND = new Uint8Array(256); // 1 whitespace, 2 delimiter: a table, for the byte-by-byte reading of inline images
for (const c of WHITE) KIND[c] = 1;
for (const c of DELIM) KIND[c] = 2;
const isWhite = (c: number | undefined) => c !== undefined && KIND[c] === 1;
const isDelim = (c: number | undefined) => c !== undefined && KIND[c] === 2;

/**
 * The inline images of a content stream, wherever `BI` stands as an operator: also inside what the interpreter
 * would skip as another image's data or a string (a reader that measures them differently sees such an image;
 * counting one more costs nothing). `at` is where `BI` stands, `id` where its dictionary ends (at `ID`, or where it
 * was left). Each dictionary is read to its `ID` as a reader does (it skips what is not a key, even another `BI`).
 * A reading that reaches, with no size and no key pending, a place an earlier one reached so, would read the same
 * from there: it stops, which keeps text that shows "BI" linear. Reading `BI /W 1` again and again over megabytes
 * would not be: past `2 ×` the stream's bytes read, `onTooMuch` refuses it.
 */
export function inlineImages(s: Uint8Array, onTooMuch: () => never): { at: number; id: number; pixels: number }[] {
  const buf = Buffer.from(s.buffer, s.byteOffset, s.byteLength);
  const found: { at: number; id: number; pixels: number }[] = [];
  const seen = new Uint8Array((s.length >> 3) + 1);
  let budget = 2 * s.length + 64 * 1024;
  for (let at = buf.indexOf('BI', 0, 'latin1'); at >= 0; at = buf.indexOf('BI', at + 2, 'latin1')) {
    const before = at === 0 || isWhite(buf[at - 1]) || isDelim(buf[at - 1]);
    const after = at + 2 >= buf.length || isWhite(buf[at + 2]) || isDelim(buf[at + 2]);
    if (!before || !after) continue;
    const end = Math.min(s.length, at + 2 + budget);
    const image = inlineImageAt(s, at + 2, end, seen);
    if (image.id >= end && end < s.length) onTooMuch();
    budget -= image.id - at;
    if (image.pixels > 0) found.push({ at, ...image });
  }
  return found;
}

const SIZE_KEYS = new Set(['/W', '/Width', '/H', '/Height']);
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)$/;

/**
 * Reads an inline image's dictionary from `from` (after BI) to its ID (or `end`), as a reader does: comments and
 * strings skipped, names' #xx escapes decoded. Its pixels: W × H (Width × Height), the largest if repeated. With
 * `seen`, marks where it stood with no size and no key pending, and stops where such a mark already is.
 */
function inlineImageAt(s: Uint8Array, from: number, end: number, seen?: Uint8Array): { id: number; pixels: number } {
  let i = from;
  let key: string | undefined;
  let w = 0;
  let h = 0;
  while (i < end) {
    const c = s[i]!;
    if (isWhite(c)) {
      i++;
      continue;
    }
    if (c === 0x25) {
      while (i < end && s[i] !== 0x0a && s[i] !== 0x0d) i++;
      continue;
    }
    if (seen && key === undefined && w === 0 && h === 0) {
      if (seen[i >> 3]! & (1 << (i & 7))) return { id: i, pixels: 0 };
      seen[i >> 3]! |= 1 << (i & 7);
    }
    let value: string | number | null = null;
    if (c === 0x2f) {
      const start = ++i;
      while (i < end && !isWhite(s[i]) && !isDelim(s[i])) i++;
      // Only a size's key matters: a longer name is some other key (W, Width… with #xx escapes stay short).
      if (i - start > 24) value = '/?';
      else {
        let n = '/';
        for (let k = start; k < i; k++) n += String.fromCharCode(s[k]!);
        value = n.includes('#')
          ? n.replace(/#([0-9a-fA-F]{2})/g, (_, x: string) => String.fromCharCode(parseInt(x, 16)))
          : n;
      }
    } else if (c === 0x28) {
      let depth = 0;
      for (; i < end; i++) {
        if (s[i] === 0x5c) {
          i++;
          continue;
        }
        if (s[i] === 0x28) depth++;
        else if (s[i] === 0x29 && --depth === 0) {
          i++;
          break;
        }
      }
    } else if (c === 0x3c && s[i + 1] !== 0x3c) {
      while (i < end && s[i] !== 0x3e) i++;
      i++;
    } else if (isDelim(c)) {
      i += (c === 0x3c || c === 0x3e) && s[i + 1] === c ? 2 : 1;
      key = undefined;
      continue;
    } else {
      const start = i;
      while (i < end && !isWhite(s[i]) && !isDelim(s[i])) i++;
      if (i - start === 2 && s[start] === 0x49 && s[start + 1] === 0x44) return { id: i, pixels: w * h }; // ID
      if (key !== undefined && SIZE_KEYS.has(key) && i - start <= 32) {
        const word = Buffer.from(s.subarray(start, i)).toString('latin1');
        if (NUMBER.test(word) && Number.isFinite(Number(word))) value = Number(word);
      }
    }
    if (key === '/W' || key === '/Width') {
      if (typeof value === 'number') w = Math.max(w, Math.floor(value));
      key = undefined;
    } else if (key === '/H' || key === '/Height') {
      if (typeof value === 'number') h = Math.max(h, Math.floor(value));
      key = undefined;
    } else key = typeof value === 'string' && key === undefined ? value : undefined;
  }
  return { id: Math.min(i, end), pixels: w * h };
}

/** The position of `word` standing alone (whitespace before, whitespace or the end after), from `from`. */
function indexOfWord(s: Uint8Array, word: string, from: number): number {
  const buf = Buffer.from(s.buffer, s.byteOffset, s.byteLength);
  for (let at = buf.indexOf(word, from, 'latin1'); at >= 0; at = buf.indexOf(word, at + 1, 'latin1')) {
    const before = at === 0 || WHITE.has(buf[at - 1]!);
    const after = at + word.length >= buf.length || WHITE.has(buf[at + word.length]!);
    if (before && after) return at;
  }
  return -1;
}
