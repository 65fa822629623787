// The registration and unregistration definitions of the specification (§3.1, §3.2), as clients read them. They
// are read-only and visible in every workspace; their ids are fixed so clients can hard-code them. Their steps are
// the ones the registration and unregistration workflows run (contract/definitions.ts).
import type { WorkflowDoc } from '../../platform/store/workflows';
import { ADDRESS_UPDATE, REGISTRATION, UNREGISTRATION } from '../../contract/definitions';

export const REGISTRATION_WORKFLOW_ID = '3b67bf9e-5044-4707-9df5-2d136892ab6f';
export const UNREGISTRATION_WORKFLOW_ID = 'bef05d6c-0677-45fc-bbf7-88521e02425d';
export const ADDRESS_UPDATE_WORKFLOW_ID = '0d6f4c1e-8b2a-4f37-9e5d-3a1b2c4d6e8f';

export const BUILTIN_WORKFLOWS: Record<string, WorkflowDoc> = {
  [REGISTRATION_WORKFLOW_ID]: {
    name: 'French party registration',
    description: 'Collects the signed mandate, registers the SIREN in the PPF directory and publishes it on Peppol.',
    schema: 'org/party',
    ...REGISTRATION,
  },
  [UNREGISTRATION_WORKFLOW_ID]: {
    name: 'French party unregistration',
    description: 'Withdraws the party from Peppol and ends its PPF directory line.',
    schema: 'org/party',
    ...UNREGISTRATION,
  },
  [ADDRESS_UPDATE_WORKFLOW_ID]: {
    name: 'French party address update',
    description:
      "Brings a registered party's directory lines and Peppol participants in line with its fr-invoicing-addresses: new addresses are added, addresses no longer stated end. Addresses beyond the signed mandate, or a name, first address or signer other than it says, need a new one: it is issued, signed and approved first, as in a registration, the one in force meanwhile; otherwise nothing waits.",
    schema: 'org/party',
    ...ADDRESS_UPDATE,
  },
};
