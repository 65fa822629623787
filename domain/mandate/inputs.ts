// What a signer sends (identity documents, a signature, a signed mandate) and an operator decides, from the API or the
// wizard: one shape for both.
import { z } from 'zod';

export const identityBody = z.strictObject({
  view: z.enum(['front', 'back', 'page']),
  data: z.string().min(1, 'data is required'),
});
export const signBody = z.strictObject({
  signature: z.string().optional(),
  mandate_number: z
    .string()
    .max(100)
    .optional()
    .describe(
      'the number of the mandate the signer read: refused (409 mandate-replaced) when the mandate has been issued again since. Optional: without it, the mandate last downloaded (GET agreement) stands for what was read (409 mandate-changed when issued again since)',
    ),
});
export const signedMandateBody = z.strictObject({ data: z.string().min(1, 'data is required') });
export const decisionBody = z
  .strictObject({ approved: z.boolean(), reason: z.string().trim().min(1).max(2000).optional() })
  .refine((d) => d.approved || d.reason, { path: ['reason'], message: 'a rejection needs a reason for the signer' });
