// What the Peppol use cases act with: the store, the SML and the Directory (ports.ts, built once by the worker), the
// box that opens the migration keys sealed at rest, and how an invoicing address names its participant.
import type { Logger } from 'pino';
import type { DataBox } from '../../platform/crypto/data-box';
import type { Db } from '../../platform/store/db';
import type { PeppolDirectory, SmlRegistry } from './ports';

export interface PeppolContext {
  db: Db;
  log: Logger;
  sml: SmlRegistry;
  directory: PeppolDirectory;
  /** Opens the migration keys (domain/party/peppol-migration.ts); made when first needed. */
  keyBox: () => DataBox;
  /**
   * The participant id of an invoicing address, formatted (`iso6523-actorid-upis::0225:<address>`); an address that
   * makes none is refused (`invalid-participant-id`).
   */
  participantIdOf: (address: string) => string;
}
