// PDF's byte classes (ISO 32000-1 §7.2.2): white-space and delimiter characters, in a table for byte-by-byte reading.
export const WHITE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
export const DELIM = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);

/** 1 whitespace, 2 delimiter, 0 a regular character */
export const KIND = new Uint8Array(256);
for (const c of WHITE) KIND[c] = 1;
for (const c of DELIM) KIND[c] = 2;
export const isWhite = (c: number | undefined) => c !== undefined && KIND[c] === 1;
export const isDelim = (c: number | undefined) => c !== undefined && KIND[c] === 2;
