// The documents our SMP serves (Peppol SMP 1.x), built, signed and cached: what api/peppol/smp.ts answers at
// /smp/{participant} (ServiceGroup), /smp/{participant}/services/{doctype} (SignedServiceMetadata with our AS4
// endpoint, signed by the SMP key) and /smp/businesscard/{participant} (the Peppol Directory BusinessCard).
// Only what is enabled in our records is served (the route answers 404 otherwise); by default the record is read on
// every request, so a disabled party is gone at once (`recordCacheMs` trades that for throughput; concurrent reads of
// one participant share one store read, and a change made in this process evicts it at once: smpRecordChanges).
// Documents are cached by what determines their content (participant, doc groups or doctype; the endpoint and keys
// are fixed per instance): RSA PKCS#1 v1.5 signatures are deterministic, so a cached document is byte-identical to
// a fresh one and needs no invalidation; the LRU only bounds memory. Each comes with its strong ETag (the SHA-256
// of its bytes), computed once with it.
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Logger } from 'pino';
import type { Config } from '../../platform/config';
import type { Db } from '../../platform/store/db';
import { businessCardSource } from '../../platform/store/business-card-source';
import { cardParty } from '../../domain/peppol/directory-card';
import { businessCardOf, businessCardXml } from './business-card';
import { certificateBase64, devCertificate } from '../../platform/crypto/dev-certificates';
import { parseParticipantId, type ParticipantId } from './participant-id';
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

/** A document ready to serve, with its strong validator (a quoted SHA-256 of its bytes). */
export interface SmpDocument {
  xml: string;
  etag: string;
}
const served = (xml: string): SmpDocument => ({
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

/**
 * A participant identifier as a request names it (`iso6523-actorid-upis::0225:…`, decoded); throws
 * InvalidParticipantIdError when it is not one. Scheme and value are both case-insensitive in Peppol; our records
 * hold them lowercased.
 */
export const smpParticipant = (raw: string): ParticipantId => parseParticipantId(raw.toLowerCase());

/** What our SMP serves of a participant; undefined where there is nothing to serve (a 404). */
export interface SmpDocuments {
  /** The participant's enabled record. */
  record(p: ParticipantId): Promise<SmpRecord | undefined>;
  /** The ServiceGroup listing the record's document types. */
  serviceGroup(p: ParticipantId, rec: SmpRecord): SmpDocument;
  /** The SignedServiceMetadata of one of the record's document types (`scheme::value`, as the request names it). */
  serviceMetadata(p: ParticipantId, rec: SmpRecord, doctype: string): SmpDocument | undefined;
  /** The Peppol Directory BusinessCard, for a party visible in the Directory, as its mandate in force states it. */
  businessCard(p: ParticipantId, rec: SmpRecord): Promise<SmpDocument | undefined>;
}

export function smpDocuments({ db, config, log }: SmpDeps, opts: SmpOptions): SmpDocuments {
  const signer = createXmlSigner(opts.smpKeyPem, opts.smpCertPem);
  const endpoint: EndpointInfo = {
    url: opts.apEndpointUrl,
    certificate: certificateBase64(opts.apCertificatePem),
    description: `${config.PA_NAME} access point`,
    technicalContactUrl: opts.technicalContactUrl ?? config.publicBaseUrl,
  };
  const signed = new Lru<SmpDocument>(opts.cacheSize ?? 10_000);
  const groups = new Lru<SmpDocument>(opts.cacheSize ?? 10_000);

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

  return {
    record: (p) => lookup(`${p.scheme}::${p.value}`),

    serviceGroup(p, rec) {
      const key = `${rec.participantId}|${rec.docGroups.join(',')}`;
      let doc = groups.get(key);
      if (!doc) groups.set(key, (doc = served(serviceGroupXml(p, documentTypes(rec.docGroups), config.smpPublicUrl))));
      return doc;
    },

    serviceMetadata(p, rec, doctype) {
      const sep = doctype.indexOf('::');
      const scheme = doctype.slice(0, sep).toLowerCase();
      const value = doctype.slice(sep + 2); // document ids are case-sensitive (busdox-docid-qns)
      const doc =
        sep > 0
          ? documentTypes(rec.docGroups).find((d) => d.scheme.toLowerCase() === scheme && d.value === value)
          : undefined;
      if (!doc) return undefined;
      const key = `${rec.participantId}|${doc.scheme}::${doc.value}`;
      let metadata = signed.get(key);
      if (!metadata) {
        signed.set(key, (metadata = served(signer.sign(serviceMetadataXml(p, doc, endpoint)))));
        log.debug({ participantId: rec.participantId, documentId: doc.value }, 'SMP service metadata signed');
      }
      return metadata;
    },

    async businessCard(p, rec) {
      // Parties that chose not to be in the Directory do not get a public card either.
      if (rec.visibility !== 'smp+sml+peppol' || !rec.directory) return undefined;
      const source = await businessCardSource(db, rec.workspaceId, rec.entryId);
      if (!source) return undefined;
      // The company as its mandate in force states it: a new name shows once its new mandate is approved.
      const party = cardParty(source.data, source.signedFacts);
      return served(businessCardXml(businessCardOf(p, party, source.siren, rec.createdAt)));
    },
  };
}
