// Every `code` a problem can carry, with its status and what it means: stable, for clients to act on (the detail is
// for people, and may change). The OpenAPI document lists, for each operation, the codes it can answer.
export interface ProblemCode {
  status: number;
  /** Other statuses the code comes with (a file too complex: 413 for its size, 422 for its structure). */
  also?: number[];
  meaning: string;
}

const c = (status: number, meaning: string, also?: number[]): ProblemCode => ({
  status,
  meaning,
  ...(also && { also }),
});

/** The statuses a code comes with. */
export const statusesOf = (code: ProblemCode): number[] => [code.status, ...(code.also ?? [])];

export const PROBLEM_CODES = {
  // Any operation
  'invalid-request': c(
    400,
    'a parameter, query or body field is invalid: `errors` lists each one by path, with the fix',
  ),
  'malformed-json': c(400, 'the body is not JSON'),
  unauthenticated: c(401, 'no API key, or an unknown or revoked one'),
  forbidden: c(403, 'the API key lacks the scope the operation needs'),
  'not-found': c(404, "no such resource in the caller's workspace (another workspace's ids are not found either)"),
  'no-route': c(404, 'no operation at this method and path'),
  'too-large': c(
    413,
    'the body, or a file in it, is larger than the limit: in bytes, or in JSON values and keys (at most 5,000 in a body, 256 in a 16 KB one)',
  ),
  'headers-too-large': c(
    431,
    'the request line and headers together pass 16 KiB (a path that long is no resource of ours)',
  ),
  'malformed-http': c(400, 'the bytes sent are not an HTTP/1.1 request'),
  'request-timeout': c(408, 'the request, its body included, did not arrive within 30 seconds: send it again'),
  'unsupported-media-type': c(415, 'the body is not in a media type the operation reads'),
  'rate-limited': c(429, 'too many requests: wait for the seconds in Retry-After'),
  internal: c(500, 'a fault of ours, logged: retry later, and report it if it lasts'),
  unavailable: c(503, 'a system the operation needs is unavailable: retry after Retry-After'),
  // operators/v1/reconciliation
  'finding-closed': c(409, 'the finding is closed already (acted on, reported, or no longer seen): nothing to confirm'),
  'no-schedule': c(409, 'the nightly reconciliation is off (RECONCILE_CRON=off): no run to start'),
  // campaigns/v1
  'invalid-file': c(
    400,
    'the campaign file cannot be read as one: its header, or a line too long (the detail names the line)',
  ),
  'campaign-key-taken': c(409, 'the campaign key names a campaign made from another file'),
  'campaign-status': c(
    409,
    'the campaign’s status does not allow it (the detail says which status it is in, and which it needs)',
  ),
  // Idempotency-Key (every authenticated POST)
  'idempotency-key-invalid': c(400, 'the Idempotency-Key header is not 1 to 255 printable ASCII characters'),
  'idempotency-key-reused': c(
    422,
    'this Idempotency-Key was used for another request (method, URL or body) within 24 hours',
  ),
  'idempotency-key-in-flight': c(
    409,
    'a request with this Idempotency-Key is still being processed: retry once it has been answered',
  ),
  // silo/v1
  'unsupported-schema': c(400, 'the document is not an org/party ($schema)'),
  'key-taken': c(409, 'an entry or job with this key already exists in the workspace'),
  'id-taken': c(409, 'a resource with this id already exists in the workspace'),
  'id-not-available': c(409, 'this id is reserved or used elsewhere: choose another'),
  'meta-ref-taken': c(409, 'another meta row of the workspace has this ref'),
  'service-meta': c(409, 'this meta key is written by the service only'),
  'patch-test-failed': c(409, 'a `test` operation of the JSON patch failed: the entry changed since it was read'),
  'patch-unappliable': c(422, 'an operation of the JSON patch cannot apply to the document (a missing path)'),
  'draft-refused': c(
    409,
    'an invalid draft (allow_invalid) cannot be kept while a registration runs or the party is registered',
  ),
  'siren-locked': c(409, 'the SIREN of an entry cannot change once a registration of it has started'),
  'mandate-signed': c(409, 'the change would alter the signed mandate under review: cancel its job and run it again'),
  // transform/v1
  'builtin-workflow': c(409, 'built-in workflows cannot be replaced'),
  'wrong-schema': c(422, 'the workflow processes another kind of document than the entry holds'),
  'invalid-data': c(422, 'the entry holds an invalid party (kept with allow_invalid): correct it first'),
  'job-running': c(409, 'the entry already has a job running: wait for it to end, or cancel it'),
  'registration-running': c(409, 'another entry of the workspace is being registered with this SIREN'),
  'not-registered': c(
    409,
    'an unregistration or address update of an entry that has nothing to undo or update (never registered, void, cancelled)',
  ),
  'siren-registered': c(409, 'this SIREN is registered already (this entry or another): unregister it first'),
  'job-ended': c(409, 'the job has ended: there is nothing to cancel'),
  'past-directory': c(409, 'the job has started acting in the directory or on Peppol: let it end, then unregister'),
  'already-decided': c(
    409,
    "the job's submission has been approved (a decision that came first): it goes on to the directory and Peppol; let it end, then unregister",
  ),
  'not-cancellable': c(409, "the job's workflow takes no cancellation (recorded by an earlier version)"),
  'temporal-unavailable': c(503, 'the workflow service could not be reached: retry after Retry-After'),
  // admin/v1
  'own-key': c(409, 'an API key or an operator credential cannot revoke itself'),
  // apps/gov-fr/v1: the mandate, its signature and the decision
  'no-mandate': c(409, 'no mandate has been issued for the entry yet: start a registration first'),
  'mandate-voided': c(409, 'the mandate was voided: its registration was cancelled'),
  'mandate-replaced': c(
    409,
    'the mandate was issued again (the party changed) while it was being signed: sign the new one',
  ),
  'mandate-changed': c(
    409,
    'the mandate was issued again (the party changed) since it was last downloaded: download and read the new one, then sign',
  ),
  'signer-missing': c(
    422,
    'the party lacks the signer fields the mandate needs (people[0] name and identity document)',
  ),
  'under-review': c(409, 'the submission is under review: wait for the decision'),
  'not-waiting': c(409, 'no registration is waiting for this entry'),
  'not-yet': c(409, 'the registration has not reached its approval wait yet: retry shortly'),
  'not-running': c(409, "the registration's workflow is not running"),
  incomplete: c(422, 'the submission lacks the identity document or the signature'),
  'nothing-to-decide': c(409, 'there is no submission to decide on'),
  decided: c(409, 'the submission has been decided already'),
  'same-operator': c(
    409,
    'the decision policy asks this submission for two approvals, and this operator gave the first: another must give the second',
  ),
  'job-cancelled': c(409, 'the job has been cancelled (a cancellation that came first): there is nothing to decide'),
  'details-locked': c(409, 'a detail on record cannot be changed in the wizard (correct it through the API)'),
  'invalid-details': c(422, 'a detail given in the wizard is invalid'),
  'details-unconfirmed': c(422, 'the signer has not confirmed the details yet'),
  'bad-encoding': c(
    400,
    'the file is not in the encoding it must be: base64 for an upload in JSON, UTF-8 for a campaign file (the detail names the line)',
  ),
  empty: c(400, 'the file is empty, or holds no row'),
  busy: c(503, 'file checks are saturated: retry after Retry-After'),
  'too-complex': c(422, 'the file is too complex to check within the limits', [413]),
  'image-too-large': c(413, 'the image has more pixels than the limit'),
  'not-a-pdf': c(415, 'the file is not a PDF'),
  'unreadable-pdf': c(422, 'the PDF cannot be read'),
  'encrypted-pdf': c(422, 'the PDF is encrypted'),
  'active-content': c(422, 'the PDF carries active content (scripts, actions, attachments)'),
  'not-signed': c(422, 'no signature was found on the uploaded mandate'),
  'not-this-mandate': c(422, "the PDF is not this entry's mandate"),
  'superseded-mandate': c(
    422,
    'the PDF is an earlier mandate of the entry, replaced when its party changed: sign the current one',
  ),
  'bad-signature': c(422, 'the PDF carries a digital signature that does not verify'),
  'not-an-image': c(415, 'the file is not a PNG or JPEG image'),
  'unreadable-image': c(422, 'the image cannot be decoded'),
  // The directory lookup
  'annuaire-unavailable': c(503, 'the PPF Annuaire is unavailable: retry later'),
  'annuaire-refused': c(502, 'the PPF Annuaire refused the lookup'),
  // apps/peppol/v1: migrations to another SMP
  'not-in-sml': c(
    409,
    'the Peppol participant is not registered at the SML by us (published in our SMP only, or not yet at the SML): there is no migration to prepare',
  ),
  'not-published': c(
    409,
    'the Peppol participant is no longer published by us (unregistered, its address ended, or migrated away)',
  ),
  'sml-unavailable': c(503, 'the SML is unavailable: retry after Retry-After'),
  'sml-refused': c(502, 'the SML refused the request'),
  // The wizard
  'link-unknown': c(404, 'the wizard link is not valid (revoked, or replaced by a newer one)'),
  'link-finished': c(410, 'the registration of this link is over'),
  'link-cancelled': c(410, 'the registration of this link was cancelled'),
} satisfies Record<string, ProblemCode>;

export type ProblemCodeName = keyof typeof PROBLEM_CODES;
export const PROBLEM_CODE_NAMES = Object.keys(PROBLEM_CODES) as [ProblemCodeName, ...ProblemCodeName[]];
