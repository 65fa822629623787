// What an uploaded file may cost to inspect. Over any of these the upload is refused with a reason naming the limit.
export const PDF_LIMITS = {
  /** bytes one stream may decode to (a page's content, a font, an image) */
  streamBytes: 50 * 1024 * 1024,
  /** bytes all the streams of a document may decode to together */
  totalBytes: 100 * 1024 * 1024,
  objects: 20_000,
  /** values in the objects (array elements, dictionary entries): what pdf-lib builds when it parses the file, as
   * sealing does; a mandate or a scan holds a few thousand */
  values: 500_000,
  pages: 50,
  /** pixels of one image (a 600 dpi A4 scan is 35 megapixels) */
  imagePixels: 50_000_000,
  /** pixels of all the images together */
  totalPixels: 200_000_000,
  /** digital signatures: each is verified over the bytes it covers, and the text of what it signed read */
  signatures: 8,
  /**
   * What drawing instructions may cost, counted as they are read, as a reader reads them (a form each time it is
   * drawn; a Type 3 font's glyphs once, as a page of their own), on one page and in all (with the revisions digital
   * signatures signed): operations (operators — `'` 2, `"` 4 —, elements of a TJ's array, 16 for each stream
   * begun), bytes of strings, bytes of content streams. pdf.js takes up to ~10 µs an operation and ~2.5 µs a byte
   * of string to read the text: the costliest file accepted (test/support/costly-pdf.ts) is checked in about a
   * quarter of a second of CPU. Our mandate draws about 200 operations, 3 KB of strings and 7 KB a page.
   */
  pageOperators: 10_000,
  operators: 20_000,
  pageTextBytes: 16 * 1024,
  textBytes: 32 * 1024,
  pageContentBytes: 256 * 1024,
  contentBytes: 512 * 1024,
} as const;

export const IMAGE_LIMITS = {
  /** an identity document: a 12-megapixel phone photo passes */
  identityPixels: 25_000_000,
  /** a signature drawn in the wizard or by a client */
  signaturePixels: 4_000_000,
  /** the longer side: a photo or a scan is a few thousand pixels; a 1 × 25,000,000 strip decodes slowly */
  side: 16_384,
} as const;

/** The drawn signature is stored at most this size (the signature box is 220 × 80 pt). */
export const SIGNATURE_FIT = { width: 900, height: 300 } as const;

/** What a PDF may hold before its inspection stops (PDF_LIMITS). */
export interface PdfLimits {
  streamBytes: number;
  totalBytes: number;
  objects: number;
  values: number;
  pages: number;
  imagePixels: number;
  totalPixels: number;
  signatures: number;
  pageOperators: number;
  operators: number;
  pageTextBytes: number;
  textBytes: number;
  pageContentBytes: number;
  contentBytes: number;
}

/** A file over a limit; the message names it, for the caller's. */
export class LimitError extends Error {
  constructor(
    readonly kind: 'size' | 'structure',
    message: string,
  ) {
    super(message);
  }

  get sizeLimit(): boolean {
    return this.kind === 'size';
  }
}

/** A file we cannot read; `message` says why. */
export class UnreadableError extends Error {}
