// The values of the meta keys the service reads, typed for the reference and generated clients. The domain checks
// them when set (domain/party/entries.ts callerMeta), with the messages a caller sees.
import { z } from 'zod';
import { INVOICING_ADDRESSES_META, invoicingAddressesValue } from '../../domain/party/invoicing-addresses';
import { FORMER_MATRICULE_META } from '../../domain/party/take-over';
import { PEPPOL_MIGRATION_KEY_META } from '../../domain/party/peppol-migration';
import * as R from '../schemas';
import { metaBody } from './inputs';

const matricule = z.string().regex(/^\d{4}$/, '4 digits');
const formerMatricule = z
  .union([matricule, z.strictObject({ matricule })])
  .describe("the matricule of the platform the company leaves for us, with the company's consent");
const migrationKey = z
  .union([z.string().min(1), z.record(z.string(), z.string().min(1))])
  .describe(
    'the key its previous Peppol provider prepared at the SML: one for every participant, or per participant id (`0225:<address>`)',
  );

/** Each known key, its value's schema and what the reference calls it. */
export const KNOWN_META = [
  {
    key: INVOICING_ADDRESSES_META,
    value: invoicingAddressesValue,
    id: 'InvoicingAddresses',
    operation: 'InvoicingAddresses',
  },
  { key: FORMER_MATRICULE_META, value: formerMatricule, id: 'FormerMatricule', operation: 'FormerMatricule' },
  { key: PEPPOL_MIGRATION_KEY_META, value: migrationKey, id: 'PeppolMigrationKey', operation: 'PeppolMigrationKey' },
] as const;

export const typedMetaBody = (value: z.ZodType) => metaBody.extend({ value });
export const typedMeta = (value: z.ZodType, id: string) =>
  R.meta.extend({ value: value.optional() }).meta({ id: `Meta${id}` });
