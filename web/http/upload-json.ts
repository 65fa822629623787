// Upload bodies are a few fields around one long base64 string. JSON.parse of megabytes of `{}` or numbers holds the
// event loop for a quarter of a second, so a body with more structure than an upload has is refused unparsed.
import express from 'express';
import { coded } from './problem';

/** Commas, colons, brackets and braces an upload body may hold: `{"view": "front", "data": "…"}` has a handful. */
const MAX_STRUCTURE = 64;
const STRUCTURE = [',', ':', '[', '{'].map((c) => c.charCodeAt(0));

function structureOver(buf: Buffer, max: number): boolean {
  let n = 0;
  for (const c of STRUCTURE) {
    for (let at = buf.indexOf(c); at !== -1; at = buf.indexOf(c, at + 1)) if (++n > max) return true;
  }
  return false;
}

/** The JSON parser of the upload routes (identity, sign, agreement): 6 MB, about 4 MB of binary in base64. */
export const uploadJson = express.json({
  limit: '6mb',
  strict: true,
  verify: (_req, _res, buf) => {
    if (structureOver(buf, MAX_STRUCTURE)) {
      throw coded(
        400,
        'invalid-request',
        `an upload body is an object of a few fields around a base64 string: this one has more than ${MAX_STRUCTURE} separators`,
      );
    }
  },
});
