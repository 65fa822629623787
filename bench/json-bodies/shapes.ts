// The costly shapes of a JSON value (a wide object, a long array of numbers, a string of escapes) and of an upload,
// each as large as a byte and a value budget allow.

export const MB = 1024 * 1024;

/** A JSON value of a costly shape, as text, within `bytes` and holding `values` values and keys (itself included). */
export type Shape = (bytes: number, values: number) => string;

/** An object of as many members as `values` allows (each a key and a value), its keys as long as `bytes` allows. */
export const wide =
  (member = '1'): Shape =>
  (bytes, values) => {
    const n = Math.floor((values - 1) / 2);
    const keyLen = Math.max(6, Math.floor((bytes - 2) / n) - (member.length + 4));
    const keys = Array.from({ length: n }, (_, i) => `"${String(i).padStart(keyLen, 'k')}":${member}`);
    return `{${keys.join(',')}}`;
  };
/** An array of values − 1 numbers, each as many digits as `bytes` allows. */
export const numbers: Shape = (bytes, values) => {
  const n = values - 1;
  const digits = Math.max(1, Math.floor((bytes - 2) / n) - 3);
  return `[${Array.from({ length: n }, (_, i) => `${(i % 9) + 1}.${'7'.repeat(digits)}`).join(',')}]`;
};
/** One string of `\u00e9` escapes filling `bytes`. */
export const escapes: Shape = (bytes) => `"${'\\u00e9'.repeat(Math.floor((bytes - 2) / 6))}"`;
/** One string of plain base64 characters: what an upload is. */
export const base64: Shape = (bytes) => `"${'QUJD'.repeat(Math.floor((bytes - 2) / 4))}"`;

export const SHAPES: Record<string, Shape> = { wide: wide(), numbers, escapes };
/** A 4 MB file (the upload limit) that starts as a PNG: decoded, and checked in the inspection pool. */
const FILE = (() => {
  const bytes = Buffer.alloc(4 * MB);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes);
  return `"${bytes.toString('base64')}"`;
})();
/** Upload bodies hold at most 64 separators: few values, as long as 6 MB allows. */
export const UPLOAD_SHAPES: Record<string, Shape> = {
  'a 4 MB file': () => FILE,
  base64,
  escapes,
  'wide (long keys)': (bytes) => wide()(bytes, 30),
  'numbers (long)': (bytes) => numbers(bytes, 30),
};

export const zeros = (n: number) => `[${new Array(n).fill('0').join(',')}]`;
