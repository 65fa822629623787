// Reads a PDF's text with poppler's pdftotext, an independent reader (installed by scripts/setup.sh --test).
import { execFileSync } from 'node:child_process';

export const pdfText = (pdf: Uint8Array): string =>
  execFileSync('pdftotext', ['-layout', '-', '-'], { input: Buffer.from(pdf), encoding: 'utf8' }).replace(/\s+/g, ' ');
