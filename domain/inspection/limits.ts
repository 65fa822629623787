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
  /** content-stream operators interpreted, all pages and forms together */
  operators: 2_000_000,
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
  operators: number;
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
