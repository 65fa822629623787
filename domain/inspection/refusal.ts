// Why an untrusted file was refused: crosses from the child process to the API as plain data.
export type RefusalCode =
  | 'too-complex'
  | 'image-too-large'
  | 'not-a-pdf'
  | 'unreadable-pdf'
  | 'encrypted-pdf'
  | 'active-content'
  | 'not-signed'
  | 'not-this-mandate'
  | 'superseded-mandate'
  | 'bad-signature'
  | 'not-an-image'
  | 'unreadable-image';

export interface Refusal {
  code: RefusalCode;
  /** A size limit crossed (too many bytes or pixels), rather than a structure refused. */
  sizeLimit?: boolean;
  /** what is wrong with the file, without the field's name (the caller adds it) */
  reason: string;
}

export class RefusedFile extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.reason);
  }
}

export const refuse = (code: RefusalCode, reason: string): never => {
  throw new RefusedFile({ code, reason });
};
