// Entry of an inspection child. The large libraries are loaded here, before tsx's loader is registered, so they
// are not transformed by it: through tsx, pdf.js alone costs a child ~170 MB more resident memory. Then our
// TypeScript (child.ts) is loaded through tsx, and finds those modules already in the module cache.
import 'pdfjs-dist/legacy/build/pdf.mjs';
import 'pdfjs-dist/legacy/build/pdf.worker.mjs';
import 'pdf-lib';
import 'sharp';
import { register } from 'tsx/esm/api';

register();
await import('./child.ts');
