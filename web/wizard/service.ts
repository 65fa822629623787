// What the registration wizard may see and do, given only its link's ref (seed §4.3): the entry behind the ref,
// the progress of its mandate, and completing the signer's missing details. Everything else (uploads, signature,
// confirmation) goes through the mandate's use cases (domain/mandate/) as the entry API does: same rules and limits.
import { formerMatriculeOf } from '../../domain/party/take-over';
import { invoicingAddressesOf } from '../../domain/party/invoicing-addresses';
import { renewalOf } from '../../domain/party/renewal';
import { frenchParty, type Party } from '../../domain/party';
import { missingSignerFields } from '../../domain/mandate-document/signer';
import { getMandate } from '../../platform/store/mandates';
import { latestDecision } from '../../platform/store/approval-decisions';
import { identityViews } from '../../platform/store/identity-documents';
import { auditTrail, recordAudit, type ClientInfo } from '../../platform/store/audit';
import { entryByApprovalRef, getEntryRow, updateEntryData } from '../../platform/store/entries';
import { activeJobOf } from '../../platform/store/jobs';
import { MandateError, type MandateDeps } from '../../domain/mandate/context';

/** Why a ref opens no wizard: unknown (or revoked) or its registration is over. */
export class WizardLinkError extends Error {
  constructor(
    readonly reason: 'unknown' | 'finished',
    readonly entryState?: string,
  ) {
    super(reason === 'unknown' ? 'this link is not valid' : 'this registration is over');
  }
}

export interface WizardEntry {
  workspaceId: string;
  entryId: string;
}

const REF = /^[A-Za-z0-9_-]{43}$/; // 32 random bytes, base64url

/** The entry a ref opens, while its registration waits for the signer; WizardLinkError otherwise. */
export async function openRef(deps: Pick<MandateDeps, 'db'>, ref: string): Promise<WizardEntry> {
  const found = REF.test(ref) ? await entryByApprovalRef(deps.db, ref) : undefined;
  if (!found) throw new WizardLinkError('unknown');
  const [mandate, job, entry] = await Promise.all([
    getMandate(deps.db, found.entryId),
    activeJobOf(deps.db, found.entryId),
    getEntryRow(deps.db, found.workspaceId, found.entryId),
  ]);
  // A link whose job was cancelled says so, whatever the party's state (a cancelled address update leaves it registered).
  if (!mandate || !job || job.id !== mandate.job_id)
    throw new WizardLinkError('finished', found.cancelled ? 'cancelled' : (entry?.state ?? undefined));
  return { workspaceId: found.workspaceId, entryId: found.entryId };
}

const SIGNER_FIELDS = ['given', 'surname', 'role', 'id_number'] as const;
type SignerField = (typeof SIGNER_FIELDS)[number];
export type SignerDetails = Partial<Record<SignerField, string>>;

function signerDetails(party: Party): SignerDetails {
  const p = party.people?.[0];
  return { given: p?.name.given, surname: p?.name.surname, role: p?.role, id_number: p?.identities?.[0]?.code };
}

const MISSING_FIELD: Record<string, SignerField> = {
  'people[0].name.given': 'given',
  'people[0].name.surname': 'surname',
  'people[0].role': 'role',
  'people[0].identities[0].code': 'id_number',
};

/** The last characters of the ID document number: enough for its holder to recognise it, not to read it. */
const hint = (v?: string) => (v ? `•••${v.slice(-3)}` : undefined);

export async function wizardState(deps: MandateDeps, w: WizardEntry) {
  const entry = (await getEntryRow(deps.db, w.workspaceId, w.entryId))!;
  const mandate = (await getMandate(deps.db, w.entryId))!;
  const party = entry.data as Party;
  const views = new Set((await identityViews(deps.db, w.entryId)).map((v) => v.view));
  const trail = await auditTrail(deps.db, w.entryId, mandate.job_id);
  // This registration's decision only: an earlier registration of the entry may have been approved or rejected.
  const decision = await latestDecision(deps.db, w.entryId, mandate.job_id);
  const address = party.addresses?.[0];
  const signer = signerDetails(party);
  return {
    pa_name: deps.config.PA_NAME,
    state: entry.state,
    mandate_number: mandate.mandate_number,
    company: {
      name: party.name,
      siren: entry.siren,
      address: address
        ? [address.num, address.street, address.street_extra, address.code, address.locality].filter(Boolean).join(' ')
        : undefined,
    },
    signer: { given: signer.given, surname: signer.surname, role: signer.role, id_number_hint: hint(signer.id_number) },
    missing: missingSignerFields(party).map((path) => MISSING_FIELD[path]),
    take_over: (await formerMatriculeOf(deps.db, w.entryId)) !== undefined,
    invoicing_addresses: await entrustedView(deps, w.entryId, entry.siren!),
    // An address update: the mandate it replaces and the addresses it adds, so the signer knows what changes.
    replaces: (await renewalOf(deps.db, entry, mandate.mandate_number)) ?? null,
    details_confirmed: confirmedFor(trail, mandate.mandate_number),
    identity: { front: views.has('front'), back: views.has('back'), page: views.has('page') },
    signed: mandate.signed_via ?? null,
    submitted: Boolean(mandate.submitted_at),
    // A rejection stays visible until the signer submits again; an approval for good.
    decision: decision && (decision.decision === 'approved' || !mandate.submitted_at) ? decision : null,
  };
}

/** Whether the signer has confirmed complete details (step 1) for this registration. */
export async function detailsConfirmed(deps: Pick<MandateDeps, 'db'>, w: WizardEntry): Promise<boolean> {
  const [entry, mandate] = await Promise.all([
    getEntryRow(deps.db, w.workspaceId, w.entryId),
    getMandate(deps.db, w.entryId),
  ]);
  if (!entry || !mandate || missingSignerFields(entry.data as Party).length) return false;
  return confirmedFor(await auditTrail(deps.db, w.entryId, mandate.job_id), mandate.mandate_number);
}

/**
 * Whether the signer confirmed the details of this mandate: issued again (the party changed), it asks them again.
 * Confirmations recorded before they named their mandate count for any.
 */
const confirmedFor = (trail: Array<{ kind: string; details: Record<string, unknown> }>, mandate: string) =>
  trail.some((e) => e.kind === 'details-confirmed' && (e.details.mandate_number ?? mandate) === mandate);

/**
 * The signer confirms the details shown, completing those the party lacks. Details already present are the
 * customer's record and are not changed here: a different value is refused.
 */
export async function confirmDetails(deps: MandateDeps, w: WizardEntry, given: SignerDetails, client: ClientInfo) {
  const entry = (await getEntryRow(deps.db, w.workspaceId, w.entryId))!;
  const mandate = (await getMandate(deps.db, w.entryId))!;
  if (mandate.submitted_at)
    throw new MandateError('under-review', 'the submission is under review: wait for the decision');
  const party = structuredClone(entry.data as Party);
  const current = signerDetails(party);
  const filled: SignerField[] = [];
  for (const f of SIGNER_FIELDS) {
    const v = given[f]?.trim();
    if (!v) continue;
    if (current[f]) {
      if (current[f] !== v)
        throw new MandateError('details-locked', `${f} is already set for this company and cannot be changed here`);
      continue;
    }
    const person = (party.people ??= [{ name: {} }])[0] ?? (party.people[0] = { name: {} });
    if (f === 'given') person.name.given = v;
    if (f === 'surname') person.name.surname = v;
    if (f === 'role') person.role = v;
    if (f === 'id_number') (person.identities ??= []).unshift({ code: v });
    filled.push(f);
  }
  const missing = missingSignerFields(party);
  if (missing.length)
    throw new MandateError('signer-missing', `the mandate needs these signer fields: ${missing.join(', ')}`);
  const valid = frenchParty.safeParse(party);
  if (!valid.success) throw new MandateError('invalid-details', `invalid details: ${valid.error.issues[0]?.message}`);
  await deps.db.tx(async (q) => {
    if (filled.length) await updateEntryData(q, w.workspaceId, w.entryId, valid.data);
    await recordAudit(q, {
      entryId: w.entryId,
      jobId: mandate.job_id,
      kind: 'details-confirmed',
      client,
      details: { completed: filled, mandate_number: mandate.mandate_number },
    });
  });
}

/** What the mandate entrusts (part 4), for the signer to read before signing: every address, or those listed. */
async function entrustedView(deps: Pick<MandateDeps, 'db'>, entryId: string, siren: string) {
  const { entrust, addresses } = await invoicingAddressesOf(deps.db, entryId, siren);
  return {
    entrust,
    addresses: addresses.map((a) => ({
      id: a.id,
      kind: a.routingCode ? 'routing' : a.siret ? 'siret' : a.suffix ? 'suffix' : 'siren',
      ...(a.routingCode && { label: a.routingCode.label }),
    })),
  };
}
