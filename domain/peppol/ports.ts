// The Peppol network as the Peppol use cases need it (ports): the SML, where our SMP registers participants, and the
// Peppol Directory, which lists them. Calls fail with a RemoteFailure (domain/remote-failure.ts); the SML's refusals
// that the use cases settle (a participant that exists, a Migrate refused) are told apart by `refusal`. The Directory
// client (integrations/peppol/directory-client.ts) satisfies its port as it is; the SML's is a small adapter of its
// SOAP client (integrations/peppol/sml-registry.ts).

/** An SML refusal, by the WSDL's client faults; `alreadyExists`: a Create refused because the SML holds it already. */
export interface SmlRefusal {
  fault: 'BadRequestFault' | 'NotFoundFault' | 'UnauthorizedFault';
  alreadyExists: boolean;
}

export interface SmlRegistry {
  /** The participants the SML holds for our SMP. */
  list(): Promise<string[]>;
  create(participantId: string): Promise<void>;
  delete(participantId: string): Promise<void>;
  /** Takes over a participant another SMP prepared to migrate, with the key it gave the company. */
  migrate(participantId: string, key: string): Promise<void>;
  /** Prepares the migration of one of ours to another SMP, with the key the company hands its new provider. */
  prepareToMigrate(participantId: string, key: string): Promise<void>;
  /** What a failed call's error says the SML refused; undefined for anything else (transport, the SML's own trouble). */
  refusal(err: unknown): SmlRefusal | undefined;
}

export interface PeppolDirectory {
  index(participantId: string): Promise<void>;
  /** One the Directory does not know counts as removed. */
  remove(participantId: string): Promise<void>;
}
