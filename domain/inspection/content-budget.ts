// What reading a PDF's content may cost, counted as it is read and stopped at the first count over a limit.
import { LimitError } from './limits';

/**
 * What reading content may cost, on one page (its content, its forms each time drawn, its annotations' appearances;
 * the glyphs of a Type 3 font count as a page of their own) and in the whole document (with the revisions its digital
 * signatures signed): operations (ContentVisitor.cost, and STREAM_OPERATIONS a stream read), bytes of strings,
 * bytes of content streams.
 */
export interface ContentLimits {
  pageOperators: number;
  operators: number;
  pageTextBytes: number;
  textBytes: number;
  pageContentBytes: number;
  contentBytes: number;
}

/** What starting to read a content stream counts, in operations (ContentBudget.content). */
export const STREAM_OPERATIONS = 16;

const KB = (n: number) => (n % 1024 ? `${n} bytes` : `${n / 1024} KB`);

/**
 * Counts what content reading costs, per page and in all, and stops it (LimitError) the moment a count passes its
 * limit: a stream's bytes before it is read, operations and strings as they are met. pdf.js reads the same content
 * again for the text: its time grows with these counts, so they bound it too.
 */
export class ContentBudget {
  private all = { operations: 0, textBytes: 0, contentBytes: 0 };
  private page = { operations: 0, textBytes: 0, contentBytes: 0 };
  private what = 'a page';
  /** Type 3 fonts whose glyphs were counted: once per document, as pdf.js loads a font once */
  readonly fontsSeen = new Set<object>();

  constructor(readonly limits: ContentLimits) {}

  /** What follows is counted for one page (`what`: how a refusal names it). */
  startPage(what = 'a page') {
    this.page = { operations: 0, textBytes: 0, contentBytes: 0 };
    this.what = what;
  }

  /** `read` counted as a page of its own (`what` names it in a refusal), and in all; then the page's counting goes on. */
  apart<T>(what: string, read: () => T): T {
    const [page, was] = [this.page, this.what];
    this.startPage(what);
    try {
      return read();
    } finally {
      [this.page, this.what] = [page, was];
    }
  }

  /** See ContentVisitor.cost. */
  add(operations: number, textBytes: number): void {
    const { limits: l, page, all } = this;
    if ((page.operations += operations) > l.pageOperators)
      this.over(`${this.what} has more than ${l.pageOperators} drawing operations`);
    if ((all.operations += operations) > l.operators) this.over(`it has more than ${l.operators} drawing operations`);
    if (!textBytes) return;
    if ((page.textBytes += textBytes) > l.pageTextBytes)
      this.over(`${this.what} has more than ${KB(l.pageTextBytes)} of text strings`);
    if ((all.textBytes += textBytes) > l.textBytes) this.over(`it has more than ${KB(l.textBytes)} of text strings`);
  }

  /**
   * A content stream of `n` bytes about to be read: its bytes, and STREAM_OPERATIONS operations (pdf.js spends as
   * much to start reading a form, a glyph's procedure or a page as on so many operators).
   */
  content(n: number): void {
    this.add(STREAM_OPERATIONS, 0);
    const { limits: l, page, all } = this;
    if ((page.contentBytes += n) > l.pageContentBytes)
      this.over(`${this.what} has more than ${KB(l.pageContentBytes)} of drawing instructions`);
    if ((all.contentBytes += n) > l.contentBytes)
      this.over(`it has more than ${KB(l.contentBytes)} of drawing instructions`);
  }

  /** what the document's content cost so far */
  get counted() {
    return { ...this.all };
  }

  private over(what: string): never {
    throw new LimitError('structure', `${what} (the limit)`);
  }
}
