// apps/gov-fr/v1: the entry API for signing the mandate (seed §4.1) and the operator's approval decision.
import express, { Router } from 'express';
import { z } from 'zod';
import { agreementPdf, type SigningDeps } from '../domain/submission/service';
import { reissueLink, revokeLink } from '../domain/submission/signer-link';
import { identityImage, signInApp, uploadIdentity, uploadSignedAgreement } from '../domain/submission/signature';
import { confirm, decide } from '../domain/submission/decision';
import { pendingSubmissions } from '../platform/store/approval-decisions';
import { LANGS } from '../domain/mandate/texts';
import { agreementBody, decisionBody, identityBody, signBody } from '../domain/submission/inputs';
import { auth, requireScope } from './auth';
import { directoryLookupRouter } from './gov-fr-directory-v1';
import { reviewRouter } from './review-v1';
import { rejectNulCharacters } from '../web/http/no-nul';
import { uploadJson } from '../web/http/upload-json';
import { MAX_SMALL_JSON_VALUES, boundedJson } from '../web/http/bounded-json';
import { body, params, query } from '../web/http/validate';

const clientOf = (req: express.Request) => ({ ip: req.ip, userAgent: req.get('user-agent') });
export const langQuery = z.strictObject({ lang: z.enum(LANGS as ['fr', 'en']).default('fr') });
export const viewParam = z.object({
  silo_entry_id: z.uuid({ error: 'must be a UUID' }),
  view: z.enum(['front', 'back', 'page']),
});
export const entryParam = z.object({ silo_entry_id: z.uuid({ error: 'must be a UUID' }) });

export function govFrRouter(deps: SigningDeps): Router {
  const r = Router();
  const id = (req: express.Request) => params(req, entryParam).silo_entry_id;
  // Operators' routes first: a key with only the `approvals` scope reviews and decides (no entries:rw needed).
  // The operator's review: the queue, the identity images, and a page using both (served by us, no third party).
  r.use('/review', reviewRouter(deps)); // the submission and its signed mandate
  r.get('/review/submissions', requireScope('approvals'), async (_req, res) => {
    res.json({ list: await pendingSubmissions(deps.db, auth(res).workspaceId) });
  });
  r.get('/entry/:silo_entry_id/identity/:view', requireScope('approvals'), async (req, res) => {
    const { view } = params(req, viewParam);
    const img = await identityImage(deps, auth(res).workspaceId, id(req), view);
    // Checked as that type at upload (no-store and nosniff come with every response); never run as a document.
    res.type(img.mime).set('content-security-policy', "default-src 'none'; sandbox").send(img.data);
  });

  // Operators (scope `approvals`) approve or reject a confirmed submission.
  r.post(
    '/entry/:silo_entry_id/decision',
    requireScope('approvals'),
    boundedJson({ limit: '16kb', maxValues: MAX_SMALL_JSON_VALUES }),
    rejectNulCharacters,
    async (req, res) => {
      const entryId = id(req);
      const b = body(req, decisionBody);
      res.json(await decide(deps, auth(res).workspaceId, entryId, { ...b, decidedBy: auth(res).keyId }));
    },
  );

  r.use('/entry/:silo_entry_id', requireScope('entries:rw'));
  r.use('/directory', requireScope('entries:rw'), directoryLookupRouter(deps));

  r.get('/entry/:silo_entry_id/agreement', async (req, res) => {
    const { lang } = query(req, langQuery);
    const { pdf, number } = await agreementPdf(deps, auth(res).workspaceId, id(req), lang);
    res
      .type('application/pdf')
      .set('content-disposition', `inline; filename="mandat-${number}.pdf"`)
      .send(Buffer.from(pdf));
  });

  r.post('/entry/:silo_entry_id/identity', uploadJson, rejectNulCharacters, async (req, res) => {
    const entryId = id(req);
    const b = body(req, identityBody);
    await uploadIdentity(deps, auth(res).workspaceId, entryId, b.view, b.data, clientOf(req));
    res.status(204).end();
  });

  r.post('/entry/:silo_entry_id/sign', uploadJson, rejectNulCharacters, async (req, res) => {
    const entryId = id(req);
    // No body at all means a typed signature; a body must be JSON like any other.
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    const b = hasBody ? body(req, signBody) : {};
    const { lang } = query(req, langQuery);
    await signInApp(
      deps,
      auth(res).workspaceId,
      entryId,
      b.signature || undefined,
      clientOf(req),
      lang,
      b.mandate_number,
    );
    res.status(204).end();
  });

  r.post('/entry/:silo_entry_id/agreement', uploadJson, rejectNulCharacters, async (req, res) => {
    const entryId = id(req);
    const b = body(req, agreementBody);
    await uploadSignedAgreement(deps, auth(res).workspaceId, entryId, b.data, clientOf(req));
    res.status(204).end();
  });

  // The wizard link: revoke it (a forwarded link must stop working), or issue a new one for the waiting registration.
  r.delete('/entry/:silo_entry_id/approval-link', async (req, res) => {
    await revokeLink(deps, auth(res).workspaceId, id(req));
    res.status(204).end();
  });
  r.post('/entry/:silo_entry_id/approval-link', async (req, res) => {
    res.status(201).json(await reissueLink(deps, auth(res).workspaceId, id(req)));
  });

  r.post('/entry/:silo_entry_id/confirm', async (req, res) => {
    res.json(await confirm(deps, auth(res).workspaceId, id(req), clientOf(req)));
  });

  return r;
}
