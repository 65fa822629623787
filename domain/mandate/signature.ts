// What the signer gives before submitting: identity documents, and the mandate signed in the wizard or uploaded
// signed; each checked under the inspection budgets and stored encrypted.
import crypto from 'node:crypto';
import type { Lang } from '../mandate-document/texts';
import { recordAudit, type ClientInfo } from '../../platform/store/audit';
import { storeSignedPdf } from '../../platform/store/mandates';
import { supersededMandates } from '../../platform/store/mandate-numbers';
import { getIdentityDocument, putIdentityDocument, type IdentityView } from '../../platform/store/identity-documents';
import { getEntryRow } from '../../platform/store/entries';
import { certificateFacts } from '../review/signing-certificate';
import { checkIdentityImage, checkSignedMandate, decodeBase64, normalisedSignature, UploadError } from './uploads';
import { sha256Hex } from './decision';
import {
  MandateError,
  type MandateDeps,
  inspectorOf,
  mandateContext,
  identityContext,
  context,
  mandateReference,
  render,
  signedTerms,
  mandateReplaced,
  refuseIfSubmitted,
} from './context';

export async function uploadIdentity(
  deps: MandateDeps,
  workspaceId: string,
  entryId: string,
  view: IdentityView,
  data: string,
  client: ClientInfo = {},
) {
  await uploadIdentityOfSigner(deps, workspaceId, [entryId], view, data, client);
}

/**
 * One face of the signer's identity document for each of `entryIds` (a bundle's companies, one signer): checked
 * once, kept for each entry as its own upload, in its audit trail. A submitted entry refuses it (under-review).
 */
export async function uploadIdentityOfSigner(
  deps: MandateDeps,
  workspaceId: string,
  entryIds: string[],
  view: IdentityView,
  data: string,
  client: ClientInfo = {},
  audit: Record<string, unknown> = {},
) {
  const contexts = await Promise.all(entryIds.map((id) => context(deps, workspaceId, id)));
  for (const ctx of contexts) refuseIfSubmitted(ctx.mandate);
  const bytes = decodeBase64('data', data);
  const mime = await checkIdentityImage(inspectorOf(deps).ownedBy(workspaceId, entryIds[0]!), 'data', bytes);
  const sha256 = crypto.createHash('sha256').update(bytes).digest('hex');
  await deps.db.tx(async (q) => {
    for (const [i, entryId] of entryIds.entries()) {
      const details = { view, sha256, ...audit };
      await recordAudit(q, { entryId, jobId: contexts[i]!.mandate.job_id, kind: 'identity', client, details });
      await putIdentityDocument(q, entryId, view, {
        mime,
        sealed: deps.box.seal(bytes, identityContext(entryId, view)),
        sha256,
        size: bytes.length,
      });
    }
  });
}

/**
 * `read`: the number of the mandate the signer read, when the client knows it (the wizard does). Without it, the
 * mandate last served unsigned (GET agreement) stands for what was read: a mandate issued again since (a party
 * change) is refused, 409 mandate-changed, rather than signed unread. The mandate current when the request arrived is
 * the one signed, or none (409 mandate-replaced: storeSignedPdf's condition).
 */
export async function signInApp(
  deps: MandateDeps,
  workspaceId: string,
  entryId: string,
  signature?: string,
  client: ClientInfo = {},
  lang: Lang = 'fr',
  read?: string,
) {
  const ctx = await context(deps, workspaceId, entryId);
  refuseIfSubmitted(ctx.mandate);
  if (read !== undefined && read !== ctx.mandate.mandate_number) {
    throw new MandateError(
      'mandate-replaced',
      `mandate ${read} was replaced by mandate ${ctx.mandate.mandate_number} when the party's details changed: read the new one, then sign it`,
    );
  }
  const served = ctx.mandate.served_number;
  if (read === undefined && served !== null && served !== ctx.mandate.mandate_number) {
    throw new MandateError(
      'mandate-changed',
      `mandate ${served}, last downloaded, was replaced by mandate ${ctx.mandate.mandate_number} when the party's details changed: download the new one (GET agreement), read it, then sign it (or name it in mandate_number)`,
    );
  }
  const terms = signedTerms(await mandateReference(deps, ctx));
  let pdf: Uint8Array;
  if (signature) {
    // Decoded and scaled down in a child process: the mandate embeds a small PNG.
    const image = await normalisedSignature(
      inspectorOf(deps).ownedBy(workspaceId, entryId),
      'signature',
      decodeBase64('signature', signature),
    );
    try {
      pdf = await render(deps, ctx, { kind: 'drawn', image, mime: 'image/png' }, lang);
    } catch (err) {
      throw new UploadError(
        'unreadable-image',
        `signature: the image cannot be decoded (${(err as Error).message.split('\n')[0]})`,
      );
    }
  } else {
    pdf = await render(deps, ctx, { kind: 'typed' }, lang);
  }
  const before = sha256Hex(await render(deps, ctx, undefined, lang));
  await deps.db.tx(async (q) => {
    await recordAudit(q, {
      entryId,
      jobId: ctx.mandate.job_id,
      kind: 'signed',
      client,
      details: { via: signature ? 'drawn' : 'typed', document_sha256: before },
    });
    const stored = await storeSignedPdf(
      q,
      entryId,
      ctx.mandate.mandate_number,
      deps.box.seal(pdf, mandateContext(entryId)),
      signature ? 'drawn' : 'typed',
      terms,
    );
    if (!stored) throw mandateReplaced(ctx.mandate);
  });
}

export async function uploadSignedMandate(
  deps: MandateDeps,
  workspaceId: string,
  entryId: string,
  data: string,
  client: ClientInfo = {},
) {
  const ctx = await context(deps, workspaceId, entryId);
  refuseIfSubmitted(ctx.mandate);
  const bytes = decodeBase64('data', data);
  // Refused unless signed: a digital signature, a visible one added, or a scan (flagged for the operator).
  const reference = await mandateReference(deps, ctx);
  const superseded = await supersededMandates(deps.db, entryId, ctx.mandate.mandate_number);
  const { evidence, certificates } = await checkSignedMandate(
    inspectorOf(deps).ownedBy(workspaceId, entryId),
    'data',
    bytes,
    reference,
    superseded,
  );
  // Whom a digital signature's certificate names, and whether the platform trusts it, as of now (the submission's
  // checks read it from the audit trail).
  const certificate =
    certificates?.signer &&
    (await certificateFacts({ signer: certificates.signer, others: certificates.others }, deps.trustAnchors));
  // The signer signed the mandate we served, whose text follows the take-over identifier and addresses set now.
  const terms = signedTerms(reference);
  await deps.db.tx(async (q) => {
    await recordAudit(q, {
      entryId,
      jobId: ctx.mandate.job_id,
      kind: 'signed',
      client,
      details: { via: 'upload', evidence, document_sha256: sha256Hex(bytes), ...(certificate && { certificate }) },
    });
    const stored = await storeSignedPdf(
      q,
      entryId,
      ctx.mandate.mandate_number,
      deps.box.seal(bytes, mandateContext(entryId)),
      'upload',
      terms,
      evidence,
    );
    if (!stored) throw mandateReplaced(ctx.mandate);
  });
}

/** An identity image, decrypted, for the operator reviewing the submission. */
export async function identityImage(deps: MandateDeps, workspaceId: string, entryId: string, view: IdentityView) {
  if (!(await getEntryRow(deps.db, workspaceId, entryId)))
    throw new MandateError('not-found', `entry ${entryId} not found`);
  const doc = await getIdentityDocument(deps.db, entryId, view);
  if (!doc) throw new MandateError('not-found', `no ${view} image for entry ${entryId}`);
  return { mime: doc.mime, data: deps.box.open(doc.data, identityContext(entryId, view)) };
}
