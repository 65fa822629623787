// The review queue's query: its filters, search, order and page, each refused with a reason when it cannot be met.
import { z } from 'zod';
import { EVIDENCE_KINDS, SUBMISSION_PURPOSES } from '../../domain/review/submission-checks';
import { decodeQueueCursor } from '../../platform/store/review-queue';

const yes = z
  .enum(['true', 'false'], { error: 'true or false' })
  .transform((v) => v === 'true')
  .optional();

export const queueQuery = z
  .strictObject({
    workspace_id: z.uuid({ error: 'must be a UUID' }).optional().describe("only this workspace's (integrator's)"),
    kind: z
      .enum(['first', 'resubmission', ...SUBMISSION_PURPOSES])
      .optional()
      .describe(
        "first: a first submission; resubmission: after a rejection; registration, renewal (a registered party's new mandate: an address update, a new name or signer), takeover (of another platform's lines): what it is for",
      ),
    evidence: z
      .enum(EVIDENCE_KINDS)
      .optional()
      .describe(
        'in-app: signed in the wizard or by API; else what showed an uploaded mandate was signed (scan: by eye)',
      ),
    submitted_before: z.iso
      .datetime({ offset: true, error: 'an ISO 8601 timestamp, e.g. 2026-01-01T00:00:00Z' })
      .optional()
      .describe('submitted before this instant (the older ones)'),
    name_mismatch: yes.describe("true: only those whose declared name differs from the PPF Annuaire's"),
    not_active: yes.describe('true: only those the PPF Annuaire shows ceased, or does not know'),
    automatic: yes.describe(
      'true: instead of those awaiting a decision, those the decision policy approved automatically whose overturn window is open (reject one to overturn it)',
    ),
    signer_check: z
      .enum(['pass', 'fail', 'unavailable'])
      .optional()
      .describe(
        "pass: the signer is among the company's directors in the public register; fail: not among them; unavailable: the register could not say (not public, or no answer)",
      ),
    first_approved: yes.describe(
      'true: only those with a first approval, waiting for a second operator (four eyes); false: only those without',
    ),
    q: z
      .string()
      .trim()
      .min(1, 'at least one character')
      .max(100, 'at most 100 characters')
      .optional()
      .describe("a SIREN or its first digits, or words of the company's declared name"),
    order: z
      .enum(['oldest', 'urgent'])
      .default('oldest')
      .describe('oldest: the earliest submitted first; urgent: the nearest approval deadline first'),
    limit: z.coerce
      .number({ error: 'a whole number' })
      .int('a whole number')
      .min(1, 'at least 1')
      .max(200, 'at most 200')
      .default(50),
    cursor: z
      .string()
      .max(200)
      .refine((c) => decodeQueueCursor(c) !== undefined, 'not a cursor from a previous page')
      .optional()
      .describe('`next_cursor` of the previous page, with the same order and filters'),
  })
  .superRefine((q, ctx) => {
    const made = q.cursor ? decodeQueueCursor(q.cursor)?.order : undefined;
    if (made && made !== q.order)
      ctx.addIssue({
        code: 'custom',
        path: ['cursor'],
        message: `a cursor of a page in order=${made}: ask with order=${made}, or without a cursor to start again`,
      });
  });
