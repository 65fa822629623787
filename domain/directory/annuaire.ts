// The PPF Annuaire as the directory use cases need it (a port): a SIREN's lines, a line by its idInstance, lines
// created, ended and masked one by one, and the routing codes a line may address. The client
// (integrations/annuaire/client.ts) satisfies it as it is, in these types. Its calls fail with a RemoteFailure
// (domain/remote-failure.ts); a write refused for good is planned again (carry-out.ts).

/** What a line addresses and who receives for it, from when. */
export interface LineAddressing {
  siren: string;
  siret?: string;
  identifiantRoutage?: string;
  suffixeAdressage?: string;
  matriculePlateforme: string;
  dateDebutEffet: string;
}

/** A line as the Annuaire records it, in its own words. */
export interface AnnuaireLine extends LineAddressing {
  idInstance: number;
  identifiantAdressage: string;
  /** Exclusive: the line is no longer in force on this day (the next line starts on it). */
  dateFinEffet: string | null;
  dateFinEffective?: string;
  /** Cancelled before it was in force (historisation.masque): never in force. */
  masked?: boolean;
}

export interface AnnuaireNewLine extends LineAddressing {
  dateFinEffet?: string;
}

/** A routing code to create: an identifiantRoutage under a SIRET (a service, a GLN…). */
export interface AnnuaireNewRoutingCode {
  siret: string;
  identifiantRoutage: string;
  libelleCodeRoutage: string;
  natureEtablissement: 'Privé' | 'Public';
  /** A: open; F: closed (fermé), no new line may use it. */
  etatAdministratif: 'A' | 'F';
  /** Four digits, e.g. 0224. */
  typeIdentifiantRoutage?: string;
  /** Whether invoices to it must carry a legal commitment number. */
  gestionEngagementJuridique?: boolean;
}

export interface Annuaire {
  /** The SIREN's lines whose period meets `dateDebutRecherche` or later (pages followed). */
  searchLines(filters: { siren: string; dateDebutRecherche: string }): Promise<AnnuaireLine[]>;
  /** A line, masked or not; null when the Annuaire has none by that idInstance. */
  getLineById(idInstance: number): Promise<AnnuaireLine | null>;
  createLine(line: AnnuaireNewLine): Promise<{ idInstance: number }>;
  endLine(idInstance: number, dateFinEffet: string): Promise<void>;
  maskLine(idInstance: number): Promise<void>;
  /** Truthy when the Annuaire holds the routing code. */
  getRoutingCode(siret: string, identifiantRoutage: string): Promise<object | null>;
  createRoutingCode(code: AnnuaireNewRoutingCode): Promise<{ idInstance: number }>;
}
