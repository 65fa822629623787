// Just enough of a content-stream interpreter to see where images are drawn: the graphics state's matrix (q, Q, cm),
// XObjects (Do) and inline images (BI … ID … EI). Everything else is skipped.
export type Matrix = [number, number, number, number, number, number];
export const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

export function multiply(m: Matrix, c: Matrix): Matrix {
  return [
    m[0] * c[0] + m[1] * c[2], m[0] * c[1] + m[1] * c[3],
    m[2] * c[0] + m[3] * c[2], m[2] * c[1] + m[3] * c[3],
    m[4] * c[0] + m[5] * c[2] + c[4], m[4] * c[1] + m[5] * c[3] + c[5],
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
  /** counts operators; throws over the limit */
  operator(): void;
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
    if (WHITE.has(c)) { i++; continue; }
    if (c === 0x25) { while (i < s.length && s[i] !== 0x0a && s[i] !== 0x0d) i++; continue; } // % comment
    if (c === 0x2f) { i++; operands.push(`/${regular()}`); continue; } // name
    if (c === 0x28) { // (string), nested parentheses, backslash escapes
      let depth = 0;
      for (; i < s.length; i++) {
        if (s[i] === 0x5c) { i++; continue; }
        if (s[i] === 0x28) depth++;
        else if (s[i] === 0x29 && --depth === 0) { i++; break; }
      }
      operands.push(null);
      continue;
    }
    if (c === 0x3c && s[i + 1] !== 0x3c) { while (i < s.length && s[i] !== 0x3e) i++; i++; operands.push(null); continue; } // <hex>
    if (c === 0x3c || c === 0x3e) { i += 2; continue; } // << >>: a dictionary operand (marked content), not needed
    if (DELIM.has(c)) { i++; continue; } // [ ] { } and stray delimiters
    const word = regular();
    if (word === '') { i++; continue; }
    const n = Number(word);
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word) && Number.isFinite(n)) { operands.push(n); continue; }
    visit.operator();
    if (word === 'q') stack.push(ctm);
    else if (word === 'Q') ctm = stack.pop() ?? ctm;
    else if (word === 'cm' && operands.length >= 6) {
      const m = operands.slice(-6);
      if (m.every((x) => typeof x === 'number')) ctm = multiply(m as Matrix, ctm);
    } else if (word === 'Do' && typeof operands.at(-1) === 'string') visit.xobject((operands.at(-1) as string).slice(1), ctm);
    else if (word === 'BI') i = inlineImage(s, i, ctm, visit);
    operands = [];
  }
}

/** Reads an inline image's parameters, skips its data, and returns the position after EI. */
function inlineImage(s: Uint8Array, from: number, ctm: Matrix, visit: ContentVisitor): number {
  const id = indexOfWord(s, 'ID', from);
  if (id < 0) return s.length;
  const params = Buffer.from(s.subarray(from, id)).toString('latin1');
  const dim = (keys: string) => Number(new RegExp(`/(?:${keys})\\s+(\\d+)`).exec(params)?.[1] ?? 0);
  visit.inlineImage(ctm, dim('W|Width') * dim('H|Height'));
  const ei = indexOfWord(s, 'EI', id + 3);
  return ei < 0 ? s.length : ei + 2;
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
