// Our SMP's paths, as Peppol sets them (SMP 1.x): served by integrations/peppol/smp-router.ts, which the Peppol
// steps' records feed; listed here so that the reference shows every path the service answers.
import { z } from 'zod';
import type { RouteSpec } from '../../web/http/route';

const smpParticipant = z.object({
  participant: z.string().describe('iso6523-actorid-upis::0225:<SIREN>, percent-encoded'),
});

export const smpPaths: RouteSpec[] = [
  {
    method: 'get',
    path: '/smp/:participant',
    operationId: 'smpServiceGroup',
    summary: 'SMP ServiceGroup (XML)',
    description: "The participant's SMP ServiceGroup (Peppol SMP 1.x), read by Peppol access points.",
    params: smpParticipant,
    responses: { 200: { mediaType: 'text/xml' }, 304: null },
  },
  {
    method: 'get',
    path: '/smp/:participant/services/:doctype',
    operationId: 'smpServiceMetadata',
    summary: 'SMP SignedServiceMetadata (XML)',
    description: 'The signed ServiceMetadata of one document type.',
    params: smpParticipant.extend({ doctype: z.string() }),
    responses: { 200: { mediaType: 'text/xml' }, 304: null },
  },
  {
    method: 'get',
    path: '/smp/businesscard/:participant',
    operationId: 'smpBusinessCard',
    summary: 'Peppol Directory BusinessCard (XML)',
    description: "The participant's business card, read by the Peppol Directory.",
    params: smpParticipant,
    responses: { 200: { mediaType: 'text/xml' } },
  },
];
