// The jobs the pool runs, and their answers: plain data between the API and a child process.
import type { ImageMime, ImagePurpose } from './inspect-image';
import type { InspectedMandate } from './inspect-pdf';
import type { Refusal } from './refusal';
import type { MandateReference } from './mandate-text';
import type { AuditFacts } from '../mandate-document/audit-page';
import type { SealInfo, SealKey } from '../mandate-document/seal';

export type Job =
  /** `superseded`: the entry's earlier mandate numbers, named when an upload carries one */
  | { kind: 'mandate'; bytes: Uint8Array; reference: MandateReference; superseded?: string[] }
  | { kind: 'image'; bytes: Uint8Array; claimed: ImageMime; purpose: ImagePurpose }
  /** the audit page and the seal: pdf-lib parses the whole signed PDF (the signer's own file, when uploaded) */
  | { kind: 'seal'; pdf: Uint8Array; facts: AuditFacts; info: SealInfo; key: SealKey };

export interface JobResults {
  mandate: InspectedMandate;
  image: { width: number; height: number; png?: Uint8Array };
  seal: Uint8Array;
}

export type Answer =
  | { id: number; ok: true; result: JobResults[Job['kind']] }
  | { id: number; ok: false; refusal: Refusal }
  | { id: number; ok: false; error: string };
