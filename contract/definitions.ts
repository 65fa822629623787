// The steps of the specification's registration (§3.1) and unregistration (§3.2). Their ids are fixed: the job
// journal names them, and clients read them in the built-in definitions (domain/jobs/builtins.ts). Running
// registrations replay against them: a different list of steps is a new workflow type, not an edit here.
import type { Definition, Step } from './job';
import type { ProviderId } from './providers';

/** A built-in step: its provider one of the registry's, checked when this compiles. */
type BuiltinStep = Step & { provider: ProviderId };

const setState = (id: string, state: string): BuiltinStep => ({
  id,
  name: 'Set state',
  provider: 'silo.state',
  summary: `Set state to ${state}`,
  config: { state },
});

export const REGISTRATION_STEPS = {
  sign: { id: '45bbab5e-08a8-4dd5-a730-b28a675a8bd8', name: 'Sign PPF agreement', provider: 'gov-fr.agreement.sign' },
  processing: setState('58bc7dba-f818-4776-80e6-dca4ac000493', 'processing'),
  approval: {
    id: '98473fe8-09d9-4bc6-9d72-ec0792ae3de3',
    name: 'Wait for PPF agreement upload',
    provider: 'gov-fr.agreement.wait.approval',
  },
  completed: setState('3ba0a0e3-591b-4abe-8e52-467dd429d2be', 'completed'),
  directory: {
    id: 'b8d84cca-bf2c-4d9c-8ded-0deff2ff0842',
    name: 'Register party in Directory',
    provider: 'gov-fr.directory.register',
  },
  peppol: {
    id: '2725ccc3-1803-440b-b8c8-b569c969bb1c',
    name: 'Register party on Peppol',
    provider: 'peppol.register',
    summary: 'france, smp+sml+peppol',
    config: { doc_groups: ['france'], visibility: 'smp+sml+peppol', directory: true, disable: false },
  },
  registered: setState('d578e66a-9b82-43b0-97ac-633a8018e92c', 'registered'),
  error: setState('bd0a74c9-5378-4831-a24a-a17206eadd40', 'error'),
} satisfies Record<string, BuiltinStep>;

export const UNREGISTRATION_STEPS = {
  peppol: {
    id: '23b7ad9d-6cb0-4214-989e-84b252ac5c0f',
    name: 'Unregister supplier from Peppol',
    provider: 'peppol.unregister',
  },
  directory: {
    id: '4a7864e7-1bd7-4e67-b138-750192bf0824',
    name: 'Disable party in Directory',
    provider: 'gov-fr.directory.disable',
  },
  void: setState('24b1da69-aa87-418a-aa83-63022676b9ee', 'void'),
  error: setState('a7d29fc7-57e9-47c5-bb62-3c6e3ede9413', 'error'),
} satisfies Record<string, BuiltinStep>;

/**
 * A registered party's invoicing addresses brought in line with what it states now: a new mandate signed and
 * approved first if they go beyond the one in force, else no wait.
 */
export const ADDRESS_UPDATE_STEPS = {
  renew: {
    id: 'f3a5c7e9-1b2d-4f60-8a9c-0e2f4a6b8c1d',
    name: 'Sign a new PPF agreement if the addresses go beyond the signed one',
    provider: 'gov-fr.agreement.renew',
  },
  approval: {
    ...REGISTRATION_STEPS.approval,
    id: '6d8f0a2c-4e6a-4b8c-9d0e-2f4a6c8e0b13',
    name: 'Wait for the new PPF agreement, if one was issued',
  },
  directory: {
    id: 'c2f0d7a4-5e1b-4c83-9a6f-1d2e3b4a5c60',
    name: 'Update party addresses in Directory',
    provider: 'gov-fr.directory.update',
  },
  peppol: {
    ...REGISTRATION_STEPS.peppol,
    id: 'e7a91b3c-2d4f-4e85-b6a7-8c9d0e1f2a31',
    name: 'Update party addresses on Peppol',
  },
  registered: setState('5b8c9d0e-1f2a-4b3c-8d4e-5f6a7b8c9d02', 'registered'),
  error: setState('9a0b1c2d-3e4f-4a5b-9c6d-7e8f9a0b1c23', 'error'),
} satisfies Record<string, BuiltinStep>;

const r = REGISTRATION_STEPS;
const u = UNREGISTRATION_STEPS;
const a = ADDRESS_UPDATE_STEPS;
/** In the order the stories run them (workflows/registration.ts, workflows/unregistration.ts). */
export const REGISTRATION: Definition = {
  steps: [r.sign, r.processing, r.approval, r.completed, r.directory, r.peppol, r.registered],
  rescue: [r.error],
};
export const UNREGISTRATION: Definition = { steps: [u.peppol, u.directory, u.void], rescue: [u.error] };
export const ADDRESS_UPDATE: Definition = {
  steps: [a.renew, a.approval, a.directory, a.peppol, a.registered],
  rescue: [a.error],
};
