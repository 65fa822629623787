// The text of a PDF as a reader shows it, by pdf.js (the legacy build, for Node): no eval, no scripting, no font
// faces, no system fonts, no XFA. Run only after walkPdf has bounded what its streams decode to.
import type { PDFDocumentProxy } from 'pdfjs-dist/types/src/display/api';

let pdfjs: typeof import('pdfjs-dist/legacy/build/pdf.mjs') | undefined;

/** Loaded once per child (half a second), before the first job. */
export async function loadPdfjs() {
  pdfjs ??= await import('pdfjs-dist/legacy/build/pdf.mjs');
  return pdfjs;
}

export async function pdfText(bytes: Uint8Array, maxPages: number): Promise<string> {
  const lib = await loadPdfjs();
  // pdf.js takes the buffer it is given: a copy.
  const task = lib.getDocument({
    data: new Uint8Array(bytes),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    enableXfa: false,
    verbosity: 0,
    stopAtErrors: false,
    useWorkerFetch: false,
    isOffscreenCanvasSupported: false,
    isImageDecoderSupported: false,
  });
  let doc: PDFDocumentProxy | undefined;
  try {
    doc = await task.promise;
    const parts: string[] = [];
    for (let n = 1; n <= Math.min(doc.numPages, maxPages); n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      for (const item of content.items) if ('str' in item) parts.push(item.str);
      page.cleanup();
    }
    return parts.join(' ');
  } finally {
    await task.destroy();
  }
}

/** Whether `text` carries `needle`, whatever the spacing a producer put between its characters. */
export const textCarries = (text: string, needle: string) =>
  text.replace(/\s+/g, '').includes(needle.replace(/\s+/g, ''));
