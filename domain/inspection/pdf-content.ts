// Just enough of a content-stream interpreter to see where images are drawn: the graphics state's matrix (q, Q, cm),
// XObjects (Do) and inline images (BI … ID … EI). Everything else is skipped.
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
  /** counts operators (`op`, the operator's name); throws over the limit */
  operator(op: string): void;
}

const WHITE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIM = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);

export function interpret(content: Uint8Array, start: Matrix, visit: ContentVisitor): void {
  const s = content;
  let i = 0;
  let ctm = start;
  const stack: Matrix[] = [];
  let operands: (number | string | null)[] = [];
  const regular = () => {
    const from = i;
    while (i < s.length && !WHITE.has(s[i]!) && !DELIM.has(s[i]!)) i++;
    return Buffer.from(s.subarray(from, i)).toString('latin1');
  };
  while (i < s.length) {
    const c = s[i]!;
    if (WHITE.has(c)) {
      i++;
      continue;
    }
    if (c === 0x25) {
      while (i < s.length && s[i] !== 0x0a && s[i] !== 0x0d) i++;
      continue;
    } // % comment
    if (c === 0x2f) {
      i++;
      operands.push(`/${regular()}`);
      continue;
    } // name
    if (c === 0x28) {
      // (string), nested parentheses, backslash escapes
      let depth = 0;
      for (; i < s.length; i++) {
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
      operands.push(null);
      continue;
    }
    if (c === 0x3c && s[i + 1] !== 0x3c) {
      while (i < s.length && s[i] !== 0x3e) i++;
      i++;
      operands.push(null);
      continue;
    } // <hex>
    if (c === 0x3c || c === 0x3e) {
      i += 2;
      continue;
    } // << >>: a dictionary operand (marked content), not needed
    if (DELIM.has(c)) {
      i++;
      continue;
    } // [ ] { } and stray delimiters
    const word = regular();
    if (word === '') {
      i++;
      continue;
    }
    const n = Number(word);
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word) && Number.isFinite(n)) {
      operands.push(n);
      continue;
    }
    visit.operator(word);
    if (word === 'q') stack.push(ctm);
    else if (word === 'Q') ctm = stack.pop() ?? ctm;
    else if (word === 'cm' && operands.length >= 6) {
      const m = operands.slice(-6);
      if (m.every((x) => typeof x === 'number')) ctm = multiply(m as Matrix, ctm);
    } else if (word === 'Do' && typeof operands.at(-1) === 'string')
      visit.xobject((operands.at(-1) as string).slice(1), ctm);
    else if (word === 'BI') i = inlineImage(s, i, ctm, visit);
    operands = [];
  }
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
