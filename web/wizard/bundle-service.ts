// What a bundle's link opens (a campaign's companies with one signer): the companies and how far each is, the
// signer's details confirmed and identity document uploaded once for all of them. Each company's mandate is then
// read, signed and submitted in its own wizard (its own link, listed here), and checked on its own.
import { MandateError, type MandateDeps } from '../../domain/mandate/context';
import { uploadIdentityOfSigner } from '../../domain/mandate/signature';
import type { IdentityView } from '../../platform/store/identity-documents';
import type { ClientInfo } from '../../platform/store/audit';
import { getMandate } from '../../platform/store/mandates';
import {
  bundleByRef,
  bundleMembers,
  type BundleMember,
  type BundleRecord,
} from '../../platform/store/campaign-bundles';
import { WizardLinkError, confirmDetails, openRef, wizardState, type SignerDetails, type WizardEntry } from './service';

const REF = /^[A-Za-z0-9_-]{43}$/;

interface OpenBundle {
  bundle: BundleRecord;
  companies: { member: BundleMember; open?: WizardEntry }[];
}

/** The bundle a ref opens and each company's wizard, where it is open (its mandate issued, not yet over). */
export async function openBundle(deps: MandateDeps, ref: string): Promise<OpenBundle> {
  const bundle = REF.test(ref) ? await bundleByRef(deps.db, ref) : undefined;
  if (!bundle) throw new WizardLinkError('unknown');
  if (bundle.campaign_status === 'cancelled') throw new WizardLinkError('finished', 'cancelled');
  const companies = await Promise.all(
    (await bundleMembers(deps.db, bundle.id)).map(async (member) => {
      if (!member.link_ref) return { member };
      try {
        return { member, open: await openRef(deps, member.link_ref) };
      } catch (err) {
        if (err instanceof WizardLinkError) return { member };
        throw err;
      }
    }),
  );
  return { bundle, companies };
}

/** The companies whose wizard is open and whose mandate is not submitted (nor approved since). */
async function toSubmit(deps: MandateDeps, b: OpenBundle) {
  const open = b.companies.filter((c) => c.open);
  const mandates = await Promise.all(open.map((c) => getMandate(deps.db, c.open!.entryId)));
  return open.filter((_c, i) => mandates[i] && !mandates[i].submitted_at);
}

export async function bundleState(deps: MandateDeps, ref: string) {
  const b = await openBundle(deps, ref);
  const states = await Promise.all(
    b.companies.map(async (c) => ({ c, state: c.open ? await wizardState(deps, c.open) : undefined })),
  );
  const open = states.flatMap((s) => (s.state ? [s.state] : []));
  const waiting = open.filter((s) => !s.submitted && s.decision?.decision !== 'approved');
  return {
    pa_name: deps.config.PA_NAME,
    signer: open[0]?.signer ?? null,
    missing: [...new Set(waiting.flatMap((s) => s.missing))],
    // What the bundle's page asks once: done when every company still to submit has it.
    details_confirmed: waiting.every((s) => s.details_confirmed && s.missing.length === 0),
    identity: {
      front: waiting.every((s) => s.identity.front),
      back: waiting.every((s) => s.identity.back),
      page: waiting.every((s) => s.identity.page),
    },
    companies: states.map(({ c, state }) => ({
      siren: c.member.siren,
      name: c.member.name,
      state: c.member.state,
      // Its own wizard, where its mandate is read, signed and submitted; none until its mandate is issued, or once over.
      link: state ? c.member.link_url : null,
      mandate_number: state?.mandate_number ?? null,
      signed: state?.signed ?? null,
      submitted: state?.submitted ?? false,
      decision: state?.decision?.decision ?? null,
    })),
  };
}

/** The signer confirms their details once: for every company still to submit, each entry completed on its own. */
export async function confirmBundleDetails(deps: MandateDeps, ref: string, given: SignerDetails, client: ClientInfo) {
  for (const c of await toSubmit(deps, await openBundle(deps, ref))) {
    try {
      await confirmDetails(deps, c.open!, given, client);
    } catch (err) {
      if (err instanceof MandateError) throw new MandateError(err.code, `SIREN ${c.member.siren}: ${err.message}`);
      throw err;
    }
  }
}

/** One face of the identity document, once: kept for every company still to submit. */
export async function uploadBundleIdentity(
  deps: MandateDeps,
  ref: string,
  view: IdentityView,
  data: string,
  client: ClientInfo,
) {
  const b = await openBundle(deps, ref);
  const companies = await toSubmit(deps, b);
  if (companies.length === 0)
    throw new MandateError('under-review', 'no company of this bundle is waiting for its signer now');
  await uploadIdentityOfSigner(
    deps,
    b.bundle.workspace_id,
    companies.map((c) => c.open!.entryId),
    view,
    data,
    client,
    { bundle_id: b.bundle.id },
  );
}
