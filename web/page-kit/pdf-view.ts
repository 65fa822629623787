// Draws a PDF into canvases with pdf.js: pixels only. No browser PDF viewer, no pdf.js viewer, no scripting: a
// document's JavaScript, actions, forms and attachments are never run or offered, whatever it carries. The pages
// import this module when they first show a PDF; pdf.js itself is not bundled but served beside the page's code
// (web/pdf-view/assets.ts), as its worker must be: the import below becomes `./pdfjs/pdf.min.mjs`.
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';

const ASSETS = new URL('./', import.meta.url).href;
pdfjs.GlobalWorkerOptions.workerSrc = `${ASSETS}pdfjs/pdf.worker.min.mjs`;

/** A mandate is a few pages; a longer document is shown in part, and the caller says so. */
export const MAX_PAGES = 30;

/**
 * Renders the first MAX_PAGES pages of `data` into `container`, one canvas a page, scaled to its width, each named
 * by `label(n)`. Rejects when the PDF cannot be read.
 */
export async function renderPdf(
  data: Uint8Array,
  container: HTMLElement,
  label: (page: number) => string,
): Promise<{ pages: number; shown: number }> {
  const task = pdfjs.getDocument({
    data,
    isEvalSupported: false, // no code built from a document's content (fonts), as the CSP forbids eval anyway
    enableXfa: false,
    stopAtErrors: false,
    standardFontDataUrl: `${ASSETS}standard_fonts/`,
    cMapUrl: `${ASSETS}cmaps/`,
    wasmUrl: `${ASSETS}wasm/`,
    iccUrl: `${ASSETS}iccs/`,
  });
  const doc = await task.promise;
  try {
    const shown = Math.min(doc.numPages, MAX_PAGES);
    const width = Math.max(container.clientWidth, 320);
    // At least twice the CSS size: the text stays sharp when the operator zooms in (a phone's pinch too). At least
    // 1400 pixels wide: in a phone's narrow frame the page's zoom (up to 300 %) still shows sharp text.
    const ratio = Math.min(Math.max(window.devicePixelRatio || 1, 2), 4);
    const pixels = Math.max(width * ratio, 1400);
    for (let n = 1; n <= shown; n++) {
      const page = await doc.getPage(n);
      const base = page.getViewport({ scale: 1 });
      const viewport = page.getViewport({ scale: pixels / base.width });
      const canvas = document.createElement('canvas');
      canvas.width = Math.floor(viewport.width);
      canvas.height = Math.floor(viewport.height);
      canvas.setAttribute('role', 'img');
      canvas.setAttribute('aria-label', label(n));
      container.append(canvas);
      // ENABLE draws every annotation's appearance (ink, stamps, signature fields): what the signer added is seen.
      await page.render({ canvas, viewport, annotationMode: pdfjs.AnnotationMode.ENABLE }).promise;
      page.cleanup();
    }
    return { pages: doc.numPages, shown };
  } finally {
    await doc.destroy();
  }
}
