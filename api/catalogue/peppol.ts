// apps/peppol/v1: migrations of a participant to another SMP; and our SMP (Peppol SMP 1.x paths).
import { z } from 'zod';
import { migrationKeyIssued, migrationStatus, participantParams } from '../peppol-v1';
import type { Operation, OperationDoc } from './operation';

const smpParticipant = z.object({
  participant: z.string().describe('iso6523-actorid-upis::0225:<SIREN>, percent-encoded'),
});

export const operations: Operation[] = [
  {
    method: 'post',
    path: '/apps/peppol/v1/entry/:silo_entry_id/participants/:participant_id/migration-key',
    summary: 'Issue a migration key for a Peppol participant moving to another provider (shown once)',
    scope: 'entries:rw',
    params: participantParams,
    responses: { 201: migrationKeyIssued },
  },
  {
    method: 'get',
    path: '/apps/peppol/v1/entry/:silo_entry_id/participants/:participant_id/migration-key',
    summary: "A participant's migration to another provider: prepared, or done",
    scope: 'entries:rw',
    params: participantParams,
    responses: { 200: migrationStatus },
  },
  {
    method: 'get',
    path: '/smp/:participant',
    summary: 'SMP ServiceGroup (XML)',
    params: smpParticipant,
    responses: { 200: { mediaType: 'text/xml' }, 304: null },
  },
  {
    method: 'get',
    path: '/smp/:participant/services/:doctype',
    summary: 'SMP SignedServiceMetadata (XML)',
    params: smpParticipant.extend({ doctype: z.string() }),
    responses: { 200: { mediaType: 'text/xml' }, 304: null },
  },
  {
    method: 'get',
    path: '/smp/businesscard/:participant',
    summary: 'Peppol Directory BusinessCard (XML)',
    params: smpParticipant,
    responses: { 200: { mediaType: 'text/xml' } },
  },
];

export const docs: Record<string, OperationDoc> = {
  'post /apps/peppol/v1/entry/:silo_entry_id/participants/:participant_id/migration-key': {
    description:
      'For a company moving to another Peppol provider: prepares the migration of one of its participants at the SML (PrepareToMigrate) with a new key, and answers the key — ' +
      'in this answer only (we keep its hash): the company hands it to its new provider, whose SMP calls SML Migrate with it. Our SMP serves the participant until then. ' +
      'Issuing a key again replaces the previous one. A participant published in our SMP only (not at the SML) has nothing to migrate (409 `not-in-sml`). ' +
      "Coming the other way, the key from the previous provider goes in the entry's meta key `peppol-migration-key` before the registration runs.",
    errors: ['not-in-sml', 'not-published', 'sml-unavailable', 'sml-refused'],
  },
  'get /apps/peppol/v1/entry/:silo_entry_id/participants/:participant_id/migration-key': {
    description:
      'Whether the new provider has migrated the participant (`migrated`), asked of the SML. Once it has, our SMP record is disabled: we no longer serve the participant. 404 until a key has been issued.',
    errors: ['sml-unavailable', 'sml-refused'],
  },
  'get /smp/:participant': {
    description: "The participant's SMP ServiceGroup (Peppol SMP 1.x), read by Peppol access points.",
  },
  'get /smp/:participant/services/:doctype': { description: 'The signed ServiceMetadata of one document type.' },
  'get /smp/businesscard/:participant': {
    description: "The participant's business card, read by the Peppol Directory.",
  },
};
