// Our SMP's public read API (Peppol SMP 1.x), an Express router mounted without auth (at /smp):
//   GET /{participant}                       → ServiceGroup listing the record's document types
//   GET /{participant}/services/{doctype}    → SignedServiceMetadata with our AS4 endpoint, signed by the SMP key
//   GET /businesscard/{participant}          → Peppol Directory BusinessCard (only when Directory visibility is on),
//                                              the company as its mandate in force states it
// Path segments arrive percent-encoded (`iso6523-actorid-upis%3A%3A0225%3A…`); Express decodes them. Anything
// not enabled in our records is 404 (by default the record is read on every request, so a disabled party is gone
// at once; `recordCacheMs` trades that for throughput).
// Documents are cached by what determines their content (participant, doc groups or doctype; the endpoint and keys
// are fixed per router): RSA PKCS#1 v1.5 signatures are deterministic, so a cached document is byte-identical to
// a fresh one and needs no invalidation; the LRU only bounds memory.
// HTTP caching: documents carry a strong ETag (the SHA-256 of their bytes, computed once) and
// `Cache-Control: public, max-age=<httpMaxAgeS>`; a conditional GET whose ETag still matches gets 304 without a
// body. Errors are `no-store`, so a participant registered a moment later is not hidden by a cached 404.
// Errors are problem details (application/problem+json, with a `code`), as the API's OpenAPI document says of these
// paths: 400 `invalid-request` for an identifier that is not one (control characters and white space included: a
// NUL would fail in the store, a trailing newline must not name the participant), 404 `not-found`.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { STATUS_CODES } from 'node:http';
import express from 'express';
import type { Logger } from 'pino';
import type { Config } from '../../platform/config';
import type { Db } from '../../platform/store/db';
import { getEntryRow } from '../../platform/store/entries';
import { approvedMandate } from '../../platform/store/mandates';
import { cardParty } from '../../domain/peppol/directory-card';
import { businessCardOf, businessCardXml } from './business-card';
import { certificateBase64, devCertificate } from '../../platform/crypto/dev-certificates';
import { InvalidParticipantIdError, parseParticipantId, type ParticipantId } from './participant-id';
import { createXmlSigner } from './smp-signing';
import { findEnabledParticipant, smpRecordChanges, type SmpRecord } from '../../platform/store/peppol-participants';
import { documentTypes, serviceGroupXml, serviceMetadataXml, type EndpointInfo } from './smp-xml';

export interface SmpOptions {
  /** Our access point's AS4 endpoint URL. */
  apEndpointUrl: string;
  /** PEM of the AP certificate published in every endpoint. */
  apCertificatePem: string;
  /** PEM of the SMP signing key and certificate. */
  smpKeyPem: string;
  smpCertPem: string;
  /** TechnicalContactUrl of the endpoints (required by the XSD); default: the public base URL. */
  technicalContactUrl?: string;
  /** Signed documents kept in memory (LRU); default 10 000. */
  cacheSize?: number;
  /**
   * How long a participant's record may be reused without reading the store again; 0 (default) reads it on
   * every request. Changes made in this process evict it at once (smpRecordChanges); changes made by another
   * process (a separate worker on PostgreSQL) show after at most this long.
   */
  recordCacheMs?: number;
  /** max-age (seconds) of SMP documents for HTTP caches between us and access points; default 60. */
  httpMaxAgeS?: number;
}

export interface SmpDeps {
  db: Db;
  config: Config;
  log: Logger;
}

/**
 * SmpOptions from explicit values, falling back to development material: self-signed SMP and AP certificates
 * generated once under `${config.dataDir}/certs/`, and `${publicBaseUrl}/as4` as the AP endpoint.
 */
export function resolveSmpOptions(
  config: Pick<Config, 'dataDir' | 'publicBaseUrl'>,
  given: Partial<
    Pick<SmpOptions, 'apEndpointUrl' | 'apCertificatePem' | 'smpKeyPem' | 'smpCertPem' | 'technicalContactUrl'>
  > = {},
): SmpOptions {
  const certs = `${config.dataDir}/certs`;
  if (!given.smpKeyPem !== !given.smpCertPem)
    throw new Error('the SMP signing key and certificate go together: configure both or neither');
  const smp =
    given.smpKeyPem && given.smpCertPem
      ? { keyPem: given.smpKeyPem, certPem: given.smpCertPem }
      : devCertificate(certs, 'smp-dev', 'SMP development (not trusted)');
  // A key that does not match its certificate would sign documents nobody can verify: refuse at start.
  if (!new crypto.X509Certificate(smp.certPem).checkPrivateKey(crypto.createPrivateKey(smp.keyPem))) {
    throw new Error('the SMP signing key does not match the SMP certificate');
  }
  return {
    apEndpointUrl: given.apEndpointUrl ?? `${config.publicBaseUrl.replace(/\/+$/, '')}/as4`,
    apCertificatePem: given.apCertificatePem ?? devCertificate(certs, 'ap-dev', 'AP development (not trusted)').certPem,
    smpKeyPem: smp.keyPem,
    smpCertPem: smp.certPem,
    technicalContactUrl: given.technicalContactUrl ?? config.publicBaseUrl,
  };
}

/** The environment's view of the SMP material (PEM file paths); every field optional, see resolveSmpOptions. */
export interface SmpFilesConfig extends Pick<Config, 'dataDir' | 'publicBaseUrl'> {
  AP_ENDPOINT_URL?: string;
  AP_CERT_FILE?: string;
  SMP_KEY_FILE?: string;
  SMP_CERT_FILE?: string;
}

/** resolveSmpOptions with the PEMs read from the configured files (development material for what is unset). */
export function smpOptionsFromFiles(c: SmpFilesConfig): SmpOptions {
  const read = (f: string | undefined) => (f ? fs.readFileSync(f, 'utf8') : undefined);
  return resolveSmpOptions(c, {
    apEndpointUrl: c.AP_ENDPOINT_URL,
    apCertificatePem: read(c.AP_CERT_FILE),
    smpKeyPem: read(c.SMP_KEY_FILE),
    smpCertPem: read(c.SMP_CERT_FILE),
  });
}

const XML_TYPE = 'text/xml; charset=utf-8';
/** Control characters (C0, DEL, C1) and white space of any kind: in no Peppol identifier. */
const UNFIT_CHARACTER = /[\p{Cc}\s]/u;

/** A document ready to serve, with its strong validator. */
interface Served {
  xml: string;
  etag: string;
}
const served = (xml: string): Served => ({
  xml,
  etag: `"${crypto.createHash('sha256').update(xml).digest('base64url')}"`,
});

class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(k: string): V | undefined {
    const v = this.map.get(k);
    if (v !== undefined) {
      this.map.delete(k);
      this.map.set(k, v);
    }
    return v;
  }
  delete(k: string): void {
    this.map.delete(k);
  }
  set(k: string, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
  }
}

export function smpRouter({ db, config, log }: SmpDeps, opts: SmpOptions): express.Router {
  const signer = createXmlSigner(opts.smpKeyPem, opts.smpCertPem);
  const endpoint: EndpointInfo = {
    url: opts.apEndpointUrl,
    certificate: certificateBase64(opts.apCertificatePem),
    description: `${config.PA_NAME} access point`,
    technicalContactUrl: opts.technicalContactUrl ?? config.publicBaseUrl,
  };
  const signed = new Lru<Served>(opts.cacheSize ?? 10_000);
  const groups = new Lru<Served>(opts.cacheSize ?? 10_000);
  const cacheControl = `public, max-age=${opts.httpMaxAgeS ?? 60}`;
  const router = express.Router();

  /**
   * Sends a document, or 304 when If-None-Match holds its ETag (weak comparison, RFC 9110 §13.1.2). Evaluated here
   * rather than by Express, which ignores validators when the request says `Cache-Control: no-cache`, as fetch()
   * clients do with every conditional request; that directive is for caches, not for the origin server.
   */
  const send = (req: express.Request, res: express.Response, doc: Served) => {
    res.type(XML_TYPE).set({ ETag: doc.etag, 'Cache-Control': cacheControl });
    const tags = req
      .get('if-none-match')
      ?.split(',')
      .map((t) => t.trim().replace(/^W\//, ''));
    if (tags?.includes(doc.etag) || tags?.includes('*')) res.status(304).end();
    else res.send(doc.xml);
  };

  // Concurrent requests for one participant share one store read (single flight). A change announced in this
  // process (smpRecordChanges) evicts both the cached record and the read in flight, so no later request sees the
  // record as it was before the change.
  const inflight = new Map<string, Promise<SmpRecord | undefined>>();
  const ttl = opts.recordCacheMs ?? 0;
  const records = new Lru<{ rec: SmpRecord | undefined; until: number }>(opts.cacheSize ?? 10_000);
  let changes = 0; // a read that overlapped any change is not cached
  smpRecordChanges.on('change', (id: string) => {
    changes++;
    records.delete(id);
    inflight.delete(id);
  });
  const lookup = async (id: string): Promise<SmpRecord | undefined> => {
    const hit = ttl > 0 ? records.get(id) : undefined;
    if (hit && hit.until > Date.now()) return hit.rec;
    let q = inflight.get(id);
    if (!q) {
      const seen = changes;
      const read: Promise<SmpRecord | undefined> = findEnabledParticipant(db, id).finally(() => {
        if (inflight.get(id) === read) inflight.delete(id);
      });
      inflight.set(id, (q = read));
      if (ttl > 0)
        read.then(
          (rec) => seen === changes && records.set(id, { rec, until: Date.now() + ttl }),
          () => undefined,
        );
    }
    return q;
  };

  // RFC 9457, as web/http/problem.ts writes them for the rest of the API (which this layer does not import).
  const problem = (res: express.Response, status: 400 | 404, detail: string) =>
    void res
      .status(status)
      .set('Cache-Control', 'no-store')
      .type('application/problem+json')
      .json({
        type: 'about:blank',
        title: STATUS_CODES[status],
        status,
        detail,
        code: status === 400 ? 'invalid-request' : 'not-found',
      });
  const notFound = (res: express.Response, what: string) => problem(res, 404, `${what} not found`);
  /** Why an identifier from the path cannot be one (a control character or white space, anywhere), or undefined. */
  const unfit = (what: string, raw: string): string | undefined => {
    const c = UNFIT_CHARACTER.exec(raw)?.[0].codePointAt(0);
    const name = `U+${c?.toString(16).toUpperCase().padStart(4, '0')}`;
    return c === undefined
      ? undefined
      : `the ${what} must not contain control characters or white space (${name} found)`;
  };

  /** The enabled record of a path's participant; undefined (after answering 400/404) otherwise. */
  async function recordOf(
    raw: string,
    res: express.Response,
  ): Promise<{ p: ParticipantId; rec: SmpRecord } | undefined> {
    const why = unfit('participant identifier', raw);
    if (why) return void problem(res, 400, why);
    let p: ParticipantId;
    try {
      // Scheme and value are both case-insensitive in Peppol; our records hold them lowercased.
      p = parseParticipantId(raw.toLowerCase());
    } catch (err) {
      if (!(err instanceof InvalidParticipantIdError)) throw err;
      return void problem(res, 400, err.message);
    }
    const rec = await lookup(`${p.scheme}::${p.value}`);
    if (!rec) return void notFound(res, 'participant');
    return { p, rec };
  }

  router.get('/businesscard/:participant', async (req, res) => {
    const found = await recordOf(req.params.participant, res);
    if (!found) return;
    const { p, rec } = found;
    // Parties that chose not to be in the Directory do not get a public card either.
    if (rec.visibility !== 'smp+sml+peppol' || !rec.directory) return notFound(res, 'business card');
    const entry = await getEntryRow(db, rec.workspaceId, rec.entryId);
    if (!entry?.siren) return notFound(res, 'business card');
    // The company as its mandate in force states it: a new name shows once its new mandate is approved.
    const party = cardParty(entry.data, (await approvedMandate(db, rec.entryId))?.facts);
    send(req, res, served(businessCardXml(businessCardOf(p, party, entry.siren, rec.createdAt))));
  });

  router.get('/:participant', async (req, res) => {
    const found = await recordOf(req.params.participant, res);
    if (!found) return;
    const { p, rec } = found;
    const key = `${rec.participantId}|${rec.docGroups.join(',')}`;
    let doc = groups.get(key);
    if (!doc) groups.set(key, (doc = served(serviceGroupXml(p, documentTypes(rec.docGroups), config.smpPublicUrl))));
    send(req, res, doc);
  });

  router.get('/:participant/services/:doctype', async (req, res) => {
    const why = unfit('document type identifier', req.params.doctype);
    if (why) return problem(res, 400, why);
    const found = await recordOf(req.params.participant, res);
    if (!found) return;
    const { p, rec } = found;
    const sep = req.params.doctype.indexOf('::');
    const scheme = req.params.doctype.slice(0, sep).toLowerCase();
    const value = req.params.doctype.slice(sep + 2); // document ids are case-sensitive (busdox-docid-qns)
    const doc =
      sep > 0
        ? documentTypes(rec.docGroups).find((d) => d.scheme.toLowerCase() === scheme && d.value === value)
        : undefined;
    if (!doc) return notFound(res, 'document type');
    const key = `${rec.participantId}|${doc.scheme}::${doc.value}`;
    let metadata = signed.get(key);
    if (!metadata) {
      signed.set(key, (metadata = served(signer.sign(serviceMetadataXml(p, doc, endpoint)))));
      log.debug({ participantId: rec.participantId, documentId: doc.value }, 'SMP service metadata signed');
    }
    send(req, res, metadata);
  });

  return router;
}
