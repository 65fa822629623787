// What a Peppol step (run-publication.ts) does to publish an entry's participants and withdraw the others, decided
// from what it read before writing: the entry's records in our SMP, the participants wanted (one per invoicing
// address; none to unregister) and which of its participants have migrated away to another SMP. No I/O here: the
// use case reads, asks planPublication, then runs the actions in their order.
//
// The order is the safe one, for every participant: the SML never points at a participant our SMP does not serve,
// and the Directory never lists one the SML does not resolve to us.
// - Withdrawing (an ended address, an unregistration, `disable`): the Directory, then the SML, then our record
//   (kept, disabled). A participant that migrated away is no longer ours at either (the Directory follows the SML to
//   the new SMP's business card): only our record is disabled.
// - Publishing: our record, then the SML, then the Directory; narrowing a visibility withdraws the Directory, then
//   the SML. What our record says is done is not done again: a retried step converges however many participants it
//   has (redoing each would need every remote call of every participant to succeed in one attempt). So every remote
//   action of a publication is followed by a `mark` of our record; a withdrawal, whose remote calls succeed when
//   there is nothing to remove, sends them again until its `disable`.
// - A participant we published that has since migrated away (its SML flag set) is taken as no longer published
//   anywhere: with the SML wanted, its SML creation meets the other SMP there, which sml-registration.ts settles (an
//   SML Migrate with the company's key, or the fault `sml-conflict`).

/** As platform/store/peppol-participants.ts VISIBILITIES: our SMP only, the SML too, the Directory too. */
export type Visibility = 'smp' | 'smp+sml' | 'smp+sml+peppol';

/** What the plan reads of a record of our SMP (platform/store/peppol-participants.ts SmpRecord). */
export interface PublicationRecord {
  participantId: string;
  enabled: boolean;
  visibility: Visibility;
  /** Whether the Directory is wanted (with visibility smp+sml+peppol). */
  directory: boolean;
  /** What the SML and the Directory were last seen to hold for it. */
  smlRegistered: boolean;
  directoryRegistered: boolean;
  /** The digest of the business card the Directory last indexed (directory-card.ts); null when not indexed. */
  directoryCard: string | null;
}

/** The config of `peppol.register`, as parsed. */
export interface PublicationConfig {
  doc_groups: readonly string[];
  visibility: Visibility;
  directory: boolean;
  /** Withdraw every participant of the entry instead. */
  disable: boolean;
}

export interface PublicationInput {
  /** Formatted participant ids, one per invoicing address, in their order. Empty (or ignored) to withdraw all. */
  wanted: readonly string[];
  /** Every record of the entry (enabled or not), in the store's order. */
  records: readonly PublicationRecord[];
  /**
   * Participants of the entry that migrated away to another SMP: we prepared their migration and our SML List no
   * longer holds them. Only those migrationCandidates names are looked at.
   */
  migratedAway: ReadonlySet<string>;
  /** Undefined for `peppol.unregister`. */
  config?: PublicationConfig;
  /** The digest of the business card our SMP serves now (directory-card.ts); with `config`. */
  card?: string;
}

/** One thing to do, to our record (`upsert`, `mark`, `migrated`, `disable`) or at a remote (the others). */
export type PublicationAction =
  /** Our record of the participant, enabled as the config says (its SML and Directory flags kept). */
  | {
      kind: 'upsert';
      participantId: string;
      docGroups: readonly string[];
      visibility: Visibility;
      directory: boolean;
    }
  /** At the SML; when another SMP holds it there, sml-registration.ts migrates it with the company's key or fails. */
  | { kind: 'sml-create'; participantId: string }
  | { kind: 'sml-delete'; participantId: string }
  | { kind: 'directory-index'; participantId: string }
  | { kind: 'directory-remove'; participantId: string }
  /** What the SML and the Directory now hold, written to our record. */
  | {
      kind: 'mark';
      participantId: string;
      smlRegistered?: boolean;
      directoryRegistered?: boolean;
      /** The card the Directory indexed (with directoryRegistered: true). */
      directoryCard?: string;
    }
  /** Its prepared migration is done: recorded when found out (platform/store/peppol-migrations.ts). */
  | { kind: 'migrated'; participantId: string }
  /** Our record disabled (kept as history), its SML and Directory flags cleared. */
  | { kind: 'disable'; participantId: string };

export interface PublicationPlan {
  /** The participants of the entry that leave Peppol: its enabled records not wanted, in the records' order. */
  withdrawn: string[];
  actions: PublicationAction[];
}

export const wantsSml = (v: Visibility): boolean => v !== 'smp';
export const wantsDirectory = (r: { visibility: Visibility; directory: boolean }): boolean =>
  r.visibility === 'smp+sml+peppol' && r.directory;

/** The ids of the participants published, once each; none when the step withdraws them all. */
function wantedOf(input: Omit<PublicationInput, 'migratedAway'>): string[] {
  return input.config && !input.config.disable ? [...new Set(input.wanted)] : [];
}

/**
 * Whether a record being withdrawn may be at the SML: its flag, or (an answer lost before the flag was written) its
 * visibility wanting it there.
 */
const mayBeAtSml = (r: PublicationRecord): boolean => r.smlRegistered || wantsSml(r.visibility);

/**
 * The participants whose migration away matters to the plan: those the SML may hold for us (see mayBeAtSml) among
 * the ones withdrawn, and those whose SML flag is set among the ones published. The use case finds out which of
 * them migrated away (with one SML List, and only when one of them has a prepared migration).
 */
export function migrationCandidates(input: Omit<PublicationInput, 'migratedAway'>): string[] {
  const wanted = new Set(wantedOf(input));
  return input.records
    .filter((r) => r.enabled && (wanted.has(r.participantId) ? r.smlRegistered : mayBeAtSml(r)))
    .map((r) => r.participantId);
}

export function planPublication(input: PublicationInput): PublicationPlan {
  const wanted = wantedOf(input);
  const wantedSet = new Set(wanted);
  const withdrawn = input.records.filter((r) => r.enabled && !wantedSet.has(r.participantId));
  const actions = withdrawn.flatMap((r) => withdrawal(r, input.migratedAway.has(r.participantId)));
  if (input.config && wanted.length > 0) {
    const records = new Map(input.records.map((r) => [r.participantId, r]));
    for (const id of wanted)
      actions.push(...publication(id, records.get(id), input.config, input.migratedAway, input.card));
  }
  return { withdrawn: withdrawn.map((r) => r.participantId), actions };
}

/** Directory, then SML, then our record; only our record for a participant that migrated away. */
function withdrawal(r: PublicationRecord, migratedAway: boolean): PublicationAction[] {
  const participantId = r.participantId;
  const atSml = mayBeAtSml(r);
  if (atSml && migratedAway)
    return [
      { kind: 'migrated', participantId },
      { kind: 'disable', participantId },
    ];
  return [
    // Indexed only once the SML is marked ours: without that mark, a listing there is another provider's (an inbound
    // migration that never happened), not ours to remove.
    ...(r.directoryRegistered || (wantsDirectory(r) && r.smlRegistered)
      ? [{ kind: 'directory-remove', participantId } as const]
      : []),
    ...(atSml ? [{ kind: 'sml-delete', participantId } as const] : []),
    { kind: 'disable', participantId },
  ];
}

/**
 * Our record, then the SML and the Directory as the visibility asks, from what the record says is done (the upsert
 * keeps its flags; a disabled record's are cleared, a new one's unset). A card changed since the Directory indexed
 * it (a company renamed under a new mandate) is indexed again: the Directory reads it from our SMP only then.
 */
function publication(
  participantId: string,
  rec: PublicationRecord | undefined,
  cfg: PublicationConfig,
  migratedAway: ReadonlySet<string>,
  card: string | undefined,
): PublicationAction[] {
  const actions: PublicationAction[] = [
    {
      kind: 'upsert',
      participantId,
      docGroups: cfg.doc_groups,
      visibility: cfg.visibility,
      directory: cfg.directory,
    },
  ];
  let sml = rec?.smlRegistered ?? false;
  let dir = rec?.directoryRegistered ?? false;
  // Migrated away: the SML and the Directory are its new provider's, so nothing there is withdrawn; with the SML
  // wanted, its SML creation brings it back (with a key).
  if (sml && migratedAway.has(participantId)) {
    actions.push(
      { kind: 'migrated', participantId },
      { kind: 'mark', participantId, smlRegistered: false, directoryRegistered: false },
    );
    sml = dir = false;
  }
  if (!wantsDirectory(cfg) && dir) {
    actions.push(
      { kind: 'directory-remove', participantId },
      { kind: 'mark', participantId, directoryRegistered: false },
    );
    dir = false;
  }
  if (wantsSml(cfg.visibility) && !sml)
    actions.push({ kind: 'sml-create', participantId }, { kind: 'mark', participantId, smlRegistered: true });
  else if (!wantsSml(cfg.visibility) && sml)
    actions.push({ kind: 'sml-delete', participantId }, { kind: 'mark', participantId, smlRegistered: false });
  const cardChanged = card !== undefined && rec?.directoryCard !== card;
  if (wantsDirectory(cfg) && (!dir || cardChanged))
    actions.push(
      { kind: 'directory-index', participantId },
      { kind: 'mark', participantId, directoryRegistered: true, ...(card !== undefined && { directoryCard: card }) },
    );
  return actions;
}
