// Inline images (BI … ID … EI) found and measured in a content stream's bytes, wherever they stand.
import { isDelim, isWhite, WHITE } from './pdf-bytes';

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
export function inlineImageAt(
  s: Uint8Array,
  from: number,
  end: number,
  seen?: Uint8Array,
): { id: number; pixels: number } {
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
export function indexOfWord(s: Uint8Array, word: string, from: number): number {
  const buf = Buffer.from(s.buffer, s.byteOffset, s.byteLength);
  for (let at = buf.indexOf(word, from, 'latin1'); at >= 0; at = buf.indexOf(word, at + 1, 'latin1')) {
    const before = at === 0 || WHITE.has(buf[at - 1]!);
    const after = at + word.length >= buf.length || WHITE.has(buf[at + word.length]!);
    if (before && after) return at;
  }
  return -1;
}
