// The registration and unregistration definitions of the specification (§3.1, §3.2), step for step.
// They are read-only and visible in every workspace; their ids are fixed so clients can hard-code them.
import type { WorkflowDoc } from '../store/workflows';

export const REGISTRATION_WORKFLOW_ID = '3b67bf9e-5044-4707-9df5-2d136892ab6f';
export const UNREGISTRATION_WORKFLOW_ID = 'bef05d6c-0677-45fc-bbf7-88521e02425d';

const setState = (id: string, state: string) => ({
  id,
  name: 'Set state',
  provider: 'silo.state',
  summary: `Set state to ${state}`,
  config: { state },
});

export const BUILTIN_WORKFLOWS: Record<string, WorkflowDoc> = {
  [REGISTRATION_WORKFLOW_ID]: {
    name: 'French party registration',
    description: 'Collects the signed mandate, registers the SIREN in the PPF directory and publishes it on Peppol.',
    schema: 'org/party',
    steps: [
      { id: '45bbab5e-08a8-4dd5-a730-b28a675a8bd8', name: 'Sign PPF agreement', provider: 'gov-fr.agreement.sign' },
      setState('58bc7dba-f818-4776-80e6-dca4ac000493', 'processing'),
      { id: '98473fe8-09d9-4bc6-9d72-ec0792ae3de3', name: 'Wait for PPF agreement upload', provider: 'gov-fr.agreement.wait.approval' },
      setState('3ba0a0e3-591b-4abe-8e52-467dd429d2be', 'completed'),
      { id: 'b8d84cca-bf2c-4d9c-8ded-0deff2ff0842', name: 'Register party in Directory', provider: 'gov-fr.directory.register' },
      {
        id: '2725ccc3-1803-440b-b8c8-b569c969bb1c',
        name: 'Register party on Peppol',
        provider: 'peppol.register',
        summary: 'france, smp+sml+peppol',
        config: { doc_groups: ['france'], visibility: 'smp+sml+peppol', directory: true, disable: false },
      },
      setState('d578e66a-9b82-43b0-97ac-633a8018e92c', 'registered'),
    ],
    rescue: [setState('bd0a74c9-5378-4831-a24a-a17206eadd40', 'error')],
  },
  [UNREGISTRATION_WORKFLOW_ID]: {
    name: 'French party unregistration',
    description: 'Withdraws the party from Peppol and ends its PPF directory line.',
    schema: 'org/party',
    steps: [
      { id: '23b7ad9d-6cb0-4214-989e-84b252ac5c0f', name: 'Unregister supplier from Peppol', provider: 'peppol.unregister' },
      { id: '4a7864e7-1bd7-4e67-b138-750192bf0824', name: 'Disable party in Directory', provider: 'gov-fr.directory.disable' },
      setState('24b1da69-aa87-418a-aa83-63022676b9ee', 'void'),
    ],
    rescue: [setState('a7d29fc7-57e9-47c5-bb62-3c6e3ede9413', 'error')],
  },
};
