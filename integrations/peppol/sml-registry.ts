// Our SML client as the Peppol use cases' port (domain/peppol/ports.ts): its calls as they are, and its SOAP faults
// told apart. Built once with the client (the worker's activities).
import type { SmlRegistry } from '../../domain/peppol/ports';
import { SmlError, type SmlClient } from './sml-client';

export function smlRegistry(sml: SmlClient): SmlRegistry {
  return {
    list: () => sml.list(),
    create: (id) => sml.create(id),
    delete: (id) => sml.delete(id),
    migrate: (id, key) => sml.migrate(id, key),
    prepareToMigrate: (id, key) => sml.prepareToMigrate(id, key),
    refusal(err) {
      if (!(err instanceof SmlError)) return undefined;
      const fault = err.kind;
      if (fault !== 'BadRequestFault' && fault !== 'NotFoundFault' && fault !== 'UnauthorizedFault') return undefined;
      return { fault, alreadyExists: err.alreadyExists };
    },
  };
}
