// What silo/v1's routes read: path, query and body schemas.
import { z } from 'zod';
import { pageCursor } from '../../web/http/schema-primitives';
import { PARTY_STATES } from '../../contract/job';
import { metaValueInput } from '../schemas';

export const entryBody = z.strictObject({
  data: z.record(z.string(), z.unknown(), { error: 'data must be a GOBL org/party object' }),
  key: z.string().trim().min(1).max(255).optional(),
  folder: z.string().trim().min(1).max(100).optional(),
});

export const idParam = z.object({ id: z.uuid({ error: 'must be a UUID' }) });
export const keyParam = z.object({ key: z.string().min(1).max(255) });
const metaKey = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'lowercase letters, digits, ".", "_" or "-", at most 64')
  .describe("the meta row's key (e.g. fr-invoicing-addresses, or one of your own)");
export const metaParams = z.object({ id: z.uuid({ error: 'must be a UUID' }), key: metaKey });

export const metaRefParams = z.object({ key: metaKey, ref: z.string().min(1).max(255) });
// The public API's lookup takes `owned=true` to scope it to the caller's workspace: here every lookup is.
export const metaRefQuery = z.strictObject({ owned: z.enum(['true', 'false']).optional() });

export const listQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100, 'at most 100').default(20),
  cursor: pageCursor.optional(),
  ascending: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional(),
  folder: z.string().max(100).optional(),
  state: z
    .enum(PARTY_STATES, { error: `one of ${PARTY_STATES.join(', ')}` })
    .optional()
    .describe('only the entries in this state (e.g. error: the registrations to look at)'),
});

export const metaBody = z.strictObject({
  src: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/)
    .default('api'),
  ref: z.string().trim().min(1).max(255).optional(),
  value: metaValueInput.optional(),
  link_url: z.url().max(2000).optional(),
  link_scope: z.enum(['public', 'private']).optional(),
  indexed: z.boolean().optional(),
  shared: z.boolean().optional(),
});
