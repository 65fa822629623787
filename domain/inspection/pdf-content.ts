// Just enough of a content-stream interpreter to see where images are drawn: the graphics state's matrix (q, Q, cm),
// XObjects (Do) and inline images (BI … ID … EI); patterns (scn, SCN) and graphics states (gs) for what glyphs of
// Type 3 fonts draw. Everything else is skipped, but every operator is counted (ContentBudget). Counting and dispatch
// stay in one loop, byte by byte, so the reading stops at the first count over a limit.
import { indexOfWord, inlineImageAt } from './inline-images';
import { multiply, type Matrix } from './matrix';
import { KIND } from './pdf-bytes';

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
