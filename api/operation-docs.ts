// Long file: one entry per operation, beside api/operations.ts; issue 43 declares each route once, with its docs.
// What the reference says of each operation beyond its schemas: a description, request examples, and the problem
// codes it can answer (web/http/problem-codes.ts). The codes an operation shares with all others of its kind (auth,
// limits, validation) are added by `errorsOf`; the tests' contract check refuses a code an operation does not list.
import type { ProblemCodeName } from '../web/http/problem-codes';
import type { Operation } from './operations';
import { REGISTRATION_WORKFLOW_ID, UNREGISTRATION_WORKFLOW_ID } from '../domain/jobs/builtins';
import { STORED_JSON_LIMITS } from '../web/http/bounded-json';

/** The limits of the free-form JSON a route stores, as the descriptions write them. */
const STORED = {
  values: STORED_JSON_LIMITS.values.toLocaleString('en'),
  bytes: STORED_JSON_LIMITS.bytes.toLocaleString('en'),
};

export interface OperationDoc {
  description: string;
  /** Named request-body examples (by media type when the operation reads several). */
  examples?: Record<string, unknown>;
  bodyExamples?: Record<string, Record<string, unknown>>;
  /** The codes of this operation's own refusals. */
  errors?: ProblemCodeName[];
}

/** Why an uploaded signed mandate is refused, by the entry API and the wizard alike (the same inspection). */
const SIGNED_PDF_REFUSALS: readonly ProblemCodeName[] = [
  'bad-encoding',
  'empty',
  'busy',
  'too-complex',
  'not-a-pdf',
  'unreadable-pdf',
  'encrypted-pdf',
  'active-content',
  'not-signed',
  'not-this-mandate',
  'superseded-mandate',
  'bad-signature',
];

/** A complete French party: the company, its SIREN, its address, and the mandate's signer (people[0]). */
export const EXAMPLE_PARTY = {
  $schema: 'https://gobl.org/draft-0/org/party',
  name: 'Boulangerie Exemple SAS',
  tax_id: { country: 'FR', code: 'FR27552032534' },
  identities: [{ type: 'SIREN', code: '552032534' }],
  addresses: [{ num: '12', street: 'rue de la Paix', locality: 'Paris', code: '75002', country: 'FR' }],
  emails: [{ addr: 'compta@boulangerie-exemple.fr' }],
  people: [
    {
      name: { given: 'Élodie', surname: 'Martin' },
      role: 'Présidente',
      identities: [{ label: 'CNI', code: 'X4RTBPFW4' }],
    },
  ],
  inboxes: [{ key: 'peppol', scheme: '0225', code: '552032534' }],
};

const REGISTRATION = REGISTRATION_WORKFLOW_ID;

const entryApiNote =
  'The entry must have a registration waiting at its approval step (a `gov-fr.agreement.sign` step has issued its mandate).';

export const OPERATION_DOCS: Record<string, OperationDoc> = {
  'get /utils/v1/ping': { description: 'Answers `{"ping":"pong"}` without a key: the service is up and reachable.' },
  'get /utils/v1/health/live': { description: "The process is alive (for an orchestrator's liveness probe)." },
  'get /utils/v1/health/ready': {
    description:
      'The database and Temporal answer: 200 when both do, 503 with the failing one otherwise (readiness probe).',
  },

  'post /silo/v1/entries': {
    description:
      "Stores a party (a GOBL `org/party` document) as a new entry of the caller's workspace and returns it with its id. " +
      'The party is validated as a French company: its VAT code, its SIREN identity (`identities[type=SIREN]`, matching the VAT code). ' +
      "The mandate's signer is `people[0]`: their given name, surname and identity document number (`people[0].identities[0].code`); " +
      'they can also be completed by the signer in the wizard. `key` makes the creation findable (and unique) by your own reference.',
    examples: { 'a French company': { data: EXAMPLE_PARTY, key: 'customer-552032534' } },
    errors: ['unsupported-schema', 'key-taken'],
  },
  'put /silo/v1/entries/:id': {
    description:
      'As `POST /silo/v1/entries`, with the id chosen by the client (retrying it cannot create two entries). An id already used answers 409; an entry is never replaced by PUT: correct it with PATCH.',
    examples: { 'a French company': { data: EXAMPLE_PARTY } },
    errors: ['unsupported-schema', 'key-taken', 'id-taken', 'id-not-available'],
  },
  'patch /silo/v1/entries/:id': {
    description:
      'Corrects the party. The body is `{content_type, data, allow_invalid?, folder?}`: `content_type` `application/json` (the default) for a whole document, ' +
      '`application/merge-patch+json` for an RFC 7396 merge patch (`null` removes a field), `application/json-patch+json` for RFC 6902 operations (all applied, or none). ' +
      "A patch may also be sent as the request's own body, with that media type. The result is validated as on creation; with `allow_invalid: true` an invalid document is kept, " +
      'its problems in `faults` (code `invalid-data`), and no registration starts until it is corrected.\n\n' +
      'Against the mandate: until it is signed any field may change, and a change to what it says (name, SIREN, first address, signer) issues it again under the next number, ' +
      'returned as `mandate_number` (an upload of the old one is then refused as `superseded-mandate`). Once signed, or while the party is registered, such a change is refused (409); ' +
      'other fields (emails, telephones, websites…) may still change. The SIREN never changes once a registration has started.',
    bodyExamples: {
      'application/json': {
        'a merge patch': {
          content_type: 'application/merge-patch+json',
          data: { name: 'Boulangerie Exemple et Fils SAS', emails: [{ addr: 'factures@boulangerie-exemple.fr' }] },
        },
        'a JSON patch': {
          content_type: 'application/json-patch+json',
          data: [
            { op: 'test', path: '/name', value: 'Boulangerie Exemple SAS' },
            { op: 'replace', path: '/addresses/0/locality', value: 'Lyon' },
          ],
        },
        'a whole document': { data: EXAMPLE_PARTY },
        'a draft kept invalid': {
          content_type: 'application/merge-patch+json',
          data: { tax_id: { country: 'FR', code: 'FR00' } },
          allow_invalid: true,
        },
      },
      'application/merge-patch+json': {
        'the signer completed': {
          people: [
            { name: { given: 'Élodie', surname: 'Martin' }, role: 'Présidente', identities: [{ code: 'X4RTBPFW4' }] },
          ],
        },
      },
      'application/json-patch+json': {
        'one field replaced': [{ op: 'replace', path: '/people/0/role', value: 'Gérante' }],
      },
    },
    errors: [
      'unsupported-schema',
      'patch-test-failed',
      'patch-unappliable',
      'siren-locked',
      'mandate-signed',
      'registered',
      'draft-refused',
    ],
  },
  'get /silo/v1/entries': {
    description:
      "The workspace's entries, newest first (`ascending=true` for oldest first), `limit` at a time; pass `next_cursor` as `cursor` for the next page. `folder` filters. Entries are listed without their `data`.",
  },
  'get /silo/v1/entries/key/:key': {
    description: 'The entry created with this `key`, with its party, meta rows, state and jobs.',
  },
  'get /silo/v1/entries/:id': {
    description:
      "The entry with its party (`data`), its `state` (see the Entry schema), what a waiting registration `waiting_for`, its `current_job` and `last_job`, its `faults` and meta rows — among them `approval-link`, the signer's wizard link.",
  },
  'get /silo/v1/entries/meta/:key/:ref': {
    description:
      "The meta row of the workspace with this key and ref (a ref is unique in a workspace), as it appears in its entry's `meta`, with its `entry_id`. `owned=true` is accepted: every lookup is scoped to the caller's workspace.",
  },
  'put /silo/v1/entries/:id/meta/:key': {
    description:
      'Sets a meta row of the entry (your own references, flags, links). `fr-invoicing-addresses` states the addresses the company receives invoices at and what its mandate entrusts — `{entrust: all|listed, start?: YYYY-MM-DD, addresses: [{} (the SIREN), {siret}, {siret, routing_code: {id, label, nature?, state?, type?, commitment_required?}}, {suffix}]}` — checked when set (400 naming each fault). ' +
      '`fr-former-matricule` is the company\'s consent to leave another platform for us, read by the registration: that platform\'s matricule, 4 digits (`"0042"` or `{"matricule": "0042"}`; neither 9998 nor ours), set before the mandate is signed (the mandate states it; one set after counts only once a new mandate is signed). ' +
      '`peppol-migration-key` too: the key its previous Peppol provider prepared at the SML (PrepareToMigrate), to migrate its participants to us — a string for every participant, or an object mapping participant ids to keys. ' +
      "The object names only the entry's own participants, `0225:<address>` for each of its invoicing addresses (set `fr-invoicing-addresses` first), with or without the scheme `iso6523-actorid-upis::`, in any case; any other id is refused (400 naming it). " +
      'The keys are secrets: stored encrypted, and shown masked (`"********"`, the participant ids kept) in this answer, the entry and every meta read; only the Peppol step reads them. ' +
      `A value holds at most ${STORED.values} JSON values and keys (each object, array, string, number, boolean, null and object key counts one) and ${STORED.bytes} bytes as compact JSON (UTF-8): a larger one is refused, 400 naming the limit.`,
    examples: {
      'invoicing addresses': {
        src: 'api',
        value: {
          entrust: 'listed',
          start: '2027-01-04',
          addresses: [
            {},
            { siret: '55203253400018', routing_code: { id: 'ACHATS', label: 'Service achats' } },
            { suffix: 'EU' },
          ],
        },
      },
      'a take-over': { src: 'api', value: '0042' },
      'a Peppol migration key': { src: 'api', value: 'Ab3$xY7!kLm9#qRt' },
      'a Peppol migration key per participant': {
        src: 'api',
        value: { '0225:552032534': 'Ab3$xY7!kLm9#qRt', '0225:552032534_eu': 'Zq8#pW2@nVc4$sEx' },
      },
      'your reference': { src: 'crm', ref: 'CUST-1234', indexed: true },
    },
    errors: ['service-meta', 'meta-ref-taken', 'invalid-data'],
  },
  'get /silo/v1/entries/:id/meta/:key': { description: 'One meta row of the entry.' },
  'delete /silo/v1/entries/:id/meta/:key': {
    description: 'Removes a meta row (not those the service writes).',
    errors: ['service-meta'],
  },
  'put /silo/v1/entries/:id/credentials/:name': {
    description: 'Stores a secret for the party, encrypted at rest; never returned (only its kind and details).',
    examples: { 'an API key': { kind: 'api-key', key: 'sk_live_…', portal: 'erp.example.com', account: 'ACME-001' } },
  },
  'get /silo/v1/entries/:id/credentials': { description: "The party's stored credentials, without their secrets." },
  'delete /silo/v1/entries/:id/credentials/:name': { description: 'Removes a stored credential.' },

  'put /transform/v1/workflows/:id': {
    description:
      'Stores a workflow definition of the workspace: its steps (each a `provider`, also named `action`) and its rescue steps, run when a step fails. The built-in registration and unregistration are listed by GET. ' +
      `The definition as stored (its steps and rescue, \`notes\` left out) holds at most ${STORED.values} JSON values and keys and ${STORED.bytes} bytes as compact JSON: a larger one is refused, 400 naming the limit.`,
    examples: {
      'set a state': {
        name: 'Mark completed',
        schema: 'org/party',
        steps: [
          {
            id: 'b1f0c7de-8a3e-4c1e-9d5a-2f6b7c8d9e01',
            name: 'Set state',
            provider: 'silo.state',
            config: { state: 'completed' },
          },
        ],
        rescue: [
          {
            id: 'b1f0c7de-8a3e-4c1e-9d5a-2f6b7c8d9e02',
            name: 'Set state',
            provider: 'silo.state',
            config: { state: 'error' },
          },
        ],
      },
    },
    errors: ['builtin-workflow', 'id-taken', 'id-not-available'],
  },
  'get /transform/v1/workflows': {
    description:
      "The workspace's workflow definitions, and the built-in ones: the French party registration and unregistration.",
  },
  'get /transform/v1/workflows/:id': { description: 'A workflow definition, with its steps.' },
  'post /transform/v1/jobs': {
    description:
      'Runs a workflow on an entry. The built-in registration issues the mandate, publishes the wizard link (`approval-link` meta) and waits for the signer and the operator; then it registers the party in the PPF Annuaire and on Peppol. ' +
      'The answer is 202 with the job as accepted; follow it with `GET /transform/v1/jobs/{id}`, the entry, or webhooks. With `?wait=N` (at most 60) it answers once the job ends or waits, or after N seconds. ' +
      'An entry runs one job at a time, and a SIREN is registered once per workspace. ' +
      'An unregistration takes `args.leave_on` (YYYY-MM-DD, today to a year ahead): the company leaves us for another platform that day; the job waits for it, our records in place, and can be cancelled meanwhile. ' +
      `\`args\` hold at most ${STORED.values} JSON values and keys and ${STORED.bytes} bytes as compact JSON (400 naming the limit).`,
    examples: {
      'register an entry': {
        workflow_id: REGISTRATION,
        silo_entry_id: '0b8e0c4e-7f57-4ad5-9d8f-3f3c1b1f5a10',
        key: 'register-552032534',
      },
      'leave for another platform on a day': {
        workflow_id: UNREGISTRATION_WORKFLOW_ID,
        silo_entry_id: '0b8e0c4e-7f57-4ad5-9d8f-3f3c1b1f5a10',
        args: { leave_on: '2027-01-04' },
      },
    },
    errors: [
      'not-found',
      'wrong-schema',
      'invalid-data',
      'job-running',
      'registration-running',
      'siren-registered',
      'not-registered',
      'key-taken',
      'id-not-available',
    ],
  },
  'put /transform/v1/jobs/:id': {
    description: 'As `POST /transform/v1/jobs`, with the job id chosen by the client: a retry cannot start two jobs.',
    examples: {
      'register an entry': { workflow_id: REGISTRATION, silo_entry_id: '0b8e0c4e-7f57-4ad5-9d8f-3f3c1b1f5a10' },
    },
    errors: [
      'wrong-schema',
      'invalid-data',
      'job-running',
      'registration-running',
      'siren-registered',
      'not-registered',
      'key-taken',
      'id-taken',
      'id-not-available',
    ],
  },
  'get /transform/v1/jobs': {
    description:
      "The workspace's jobs, newest first, `limit` at a time (`next_cursor` gives the next page); filter by `silo_entry_id`, `status`, `workflow_id`, or `created_at` (at or before).",
  },
  'post /transform/v1/jobs/:id/cancel': {
    description:
      'Cancels a job until a step acting outside the service has started (for a registration: the directory step). The job ends `CANCEL` with your reason in its journal and faults, ' +
      'its mandate is voided, its wizard link revoked, the party goes `cancelled`, and a new job can start on the entry. Once the directory step has started the answer is 409 `past-directory`: ' +
      'let the job end, then run the unregistration. The body is optional. ' +
      "A cancellation and the operator's approval decision racing: exactly one wins. A submission approved first makes the cancellation 409 `already-decided` (the job goes on); " +
      'a cancellation first makes the decision 409 `job-cancelled`.',
    examples: { 'with a reason': { reason: 'the customer chose another platform' } },
    errors: ['job-ended', 'past-directory', 'already-decided', 'not-cancellable', 'temporal-unavailable'],
  },
  'get /transform/v1/jobs/key/:key': { description: 'The job created with this `key`.' },
  'get /transform/v1/jobs/:id': {
    description:
      'The job: its `status` (see the Job schema), what it is `waiting_for` in WAIT, each step run (`intents`) with its events, and its faults once it ended in error.',
  },

  'get /admin/v1/keys': { description: "The workspace's API keys, their names and scopes; never their secrets." },
  'post /admin/v1/keys': {
    description:
      'Creates an API key with the scopes given: `entries:rw` and `jobs:rw` for an integrator, `approvals` for an operator, `admin` for keys and webhooks. Its secret is in this answer only.',
    examples: { "an operator's key": { name: 'review desk', scopes: ['approvals'] } },
  },
  'delete /admin/v1/keys/:id': {
    description: 'Revokes a key at once (a key cannot revoke itself).',
    errors: ['own-key'],
  },

  'post /events/v1/subscriptions': {
    description:
      "Sends the workspace's events of the kinds given to a URL (Standard Webhooks signatures, retried with backoff). The signing secret is in this answer only.",
    examples: {
      'party states and job ends': {
        url: 'https://erp.example.com/hooks/pa',
        kinds: ['party.state_changed', 'job.completed'],
      },
    },
  },
  'get /events/v1/subscriptions': { description: "The workspace's webhook subscriptions." },
  'get /events/v1/subscriptions/:id': { description: 'A webhook subscription.' },
  'delete /events/v1/subscriptions/:id': { description: 'Disables a subscription: no more deliveries.' },
  'get /events/v1/subscriptions/:id/deliveries': {
    description: 'Each delivery to the subscription, with its attempts (status code, error, duration).',
  },
  'get /events/v1/events': {
    description:
      "The workspace's events, newest first in the order they happened: `party.state_changed`, `party.updated`, `job.completed`. Filter by `entry_id` and `kind` (several, comma-separated); `next_cursor` gives the next page.",
  },

  'get /apps/gov-fr/v1/entry/:silo_entry_id/agreement': {
    description: `The mandate as a PDF: pre-filled until it is signed, then the signed one (sealed once submitted). \`lang=en\` for the English text. ${entryApiNote}`,
    errors: ['no-mandate', 'mandate-voided', 'signer-missing'],
  },
  'post /apps/gov-fr/v1/entry/:silo_entry_id/identity': {
    description: `Uploads one face of the signer's identity document (PNG or JPEG, base64): \`front\` and \`back\` of an identity card, or a passport \`page\`. ${entryApiNote}`,
    examples: { 'the front of an ID card': { view: 'front', data: '<base64 of a JPEG>' } },
    errors: [
      'no-mandate',
      'mandate-voided',
      'under-review',
      'bad-encoding',
      'empty',
      'busy',
      'image-too-large',
      'not-an-image',
      'unreadable-image',
      'too-complex',
    ],
  },
  'post /apps/gov-fr/v1/entry/:silo_entry_id/sign': {
    description:
      "Signs the mandate in the app: with a drawn signature (a PNG, base64) or, without one, the signer's typed name. " +
      'The mandate signed is the one current when the request arrives: issued again meanwhile (a party change), 409 `mandate-replaced`. ' +
      '`mandate_number` (optional, our addition to the public contract) names the mandate the signer read: 409 `mandate-replaced` when it is no longer current. ' +
      'Without it, the mandate last downloaded (GET agreement, here or in the wizard) stands for what was read: issued again since, 409 `mandate-changed` — download it again, or name it. ' +
      entryApiNote,
    examples: {
      typed: {},
      drawn: { signature: '<base64 of a PNG>' },
      'naming the mandate read': { mandate_number: '356000000_552032534_20261122_01' },
    },
    errors: [
      'no-mandate',
      'mandate-voided',
      'mandate-replaced',
      'mandate-changed',
      'signer-missing',
      'under-review',
      'bad-encoding',
      'empty',
      'busy',
      'image-too-large',
      'not-an-image',
      'unreadable-image',
      'too-complex',
    ],
  },
  'post /apps/gov-fr/v1/entry/:silo_entry_id/agreement': {
    description: `Uploads the mandate signed elsewhere (a PDF, base64): digitally signed, with a signature added, or printed, signed and scanned. It must be this entry's current mandate. ${entryApiNote}`,
    examples: { 'a signed PDF': { data: '<base64 of the signed PDF>' } },
    errors: [
      'no-mandate',
      'mandate-voided',
      'mandate-replaced',
      'signer-missing',
      'under-review',
      ...SIGNED_PDF_REFUSALS,
    ],
  },
  'post /apps/gov-fr/v1/entry/:silo_entry_id/confirm': {
    description:
      "Submits the signed mandate and the identity document for the operator's review; the entry goes `submitted`.",
    errors: ['no-mandate', 'mandate-voided', 'incomplete', 'not-waiting', 'not-yet', 'not-running', 'unavailable'],
  },
  'delete /apps/gov-fr/v1/entry/:silo_entry_id/approval-link': {
    description: "Revokes the signer's wizard link (a link sent to the wrong person): it opens nothing from now on.",
  },
  'post /apps/gov-fr/v1/entry/:silo_entry_id/approval-link': {
    description: 'Issues a new wizard link for the waiting registration; the old one stops working.',
    errors: ['no-mandate', 'mandate-voided', 'not-waiting'],
  },
  'post /apps/gov-fr/v1/entry/:silo_entry_id/decision': {
    description:
      "The operator's decision on the submission (scope `approvals`). Approved, the registration goes on to the directory and Peppol; rejected, the signer is asked for a new submission, with your reason. " +
      'A decision and a cancellation of the job racing: exactly one wins; a cancellation first makes the decision 409 `job-cancelled`, an approval first makes the cancellation 409 `already-decided`.',
    examples: {
      approve: { approved: true },
      reject: { approved: false, reason: 'The identity document is illegible: upload a sharper photo.' },
    },
    errors: [
      'no-mandate',
      'mandate-voided',
      'nothing-to-decide',
      'decided',
      'job-cancelled',
      'not-waiting',
      'not-running',
      'unavailable',
    ],
  },
  'get /apps/gov-fr/v1/entry/:silo_entry_id/identity/:view': {
    description: 'An identity document image as uploaded, decrypted, for the operator (scope `approvals`).',
  },
  'get /apps/gov-fr/v1/review/submissions': {
    description: 'The submissions awaiting a decision, oldest first (scope `approvals`).',
  },
  'get /apps/gov-fr/v1/review/submissions/:silo_entry_id': {
    description:
      "What the operator decides on: the party, the signer, the identity images, the mandate, the company's lines in the PPF Annuaire.",
  },
  'get /apps/gov-fr/v1/review/submissions/:silo_entry_id/mandate': {
    description: 'The signed mandate under review, as a PDF.',
    errors: ['mandate-voided'],
  },
  'get /apps/gov-fr/v1/directory/siren/:siren': {
    description: "The company's lines in the PPF Annuaire: which platform receives its invoices today.",
    errors: ['annuaire-unavailable', 'annuaire-refused'],
  },
  'get /apps/gov-fr/v1/directory/identifier/:identifier': {
    description: 'The lines of an addressing identifier in the PPF Annuaire.',
    errors: ['annuaire-unavailable', 'annuaire-refused'],
  },

  'post /apps/peppol/v1/entry/:silo_entry_id/participants/:participant_id/migration-key': {
    description:
      'For a company moving to another Peppol provider: prepares the migration of one of its participants at the SML (PrepareToMigrate) with a new key, and answers the key — ' +
      'in this answer only (we keep its hash): the company hands it to its new provider, whose SMP calls SML Migrate with it. Our SMP serves the participant until then. ' +
      'Issuing a key again replaces the previous one. A participant published in our SMP only (not at the SML) has nothing to migrate (409 `not-in-sml`). ' +
      "Coming the other way, the key from the previous provider goes in the entry's meta key `peppol-migration-key` before the registration runs.",
    errors: ['not-in-sml', 'not-published', 'sml-unavailable', 'sml-refused'],
  },
  'get /apps/peppol/v1/entry/:silo_entry_id/participants/:participant_id/migration-key': {
    description:
      'Whether the new provider has migrated the participant (`migrated`), asked of the SML. Once it has, our SMP record is disabled: we no longer serve the participant. 404 until a key has been issued.',
    errors: ['sml-unavailable', 'sml-refused'],
  },

  'get /reg/:ref/start': {
    description:
      "The signer's wizard: the link published in the entry's `approval-link` meta. Its ref is the only credential.",
    errors: ['link-unknown', 'link-finished', 'link-cancelled'],
  },
  'get /reg/:ref/api/state': {
    description: "The wizard's state: the details shown to the signer and the step reached.",
    errors: ['link-unknown', 'link-finished', 'link-cancelled'],
  },
  'post /reg/:ref/api/details': {
    description: 'The signer confirms the details, completing the missing signer fields.',
    examples: {
      'the signer completes their details': {
        given: 'Élodie',
        surname: 'Martin',
        role: 'Présidente',
        id_number: 'X4RTBPFW4',
      },
    },
    errors: [
      'link-unknown',
      'link-finished',
      'link-cancelled',
      'details-locked',
      'invalid-details',
      'signer-missing',
      'under-review',
    ],
  },
  'get /reg/:ref/api/agreement': {
    description: 'The mandate PDF, in the wizard.',
    errors: ['link-unknown', 'link-finished', 'link-cancelled', 'no-mandate', 'mandate-voided', 'signer-missing'],
  },
  'post /reg/:ref/api/identity': {
    description: "The wizard's identity upload.",
    examples: { 'a passport page': { view: 'page', data: '<base64 of a JPEG>' } },
    errors: [
      'link-unknown',
      'link-finished',
      'link-cancelled',
      'under-review',
      'bad-encoding',
      'empty',
      'busy',
      'image-too-large',
      'not-an-image',
      'unreadable-image',
      'too-complex',
      'details-unconfirmed',
    ],
  },
  'post /reg/:ref/api/sign': {
    description:
      "The wizard's signature, under the entry API's rules: the wizard names the mandate shown (`mandate_number`); without it, a mandate issued again since it was last downloaded is refused (409 `mandate-changed`).",
    examples: { typed: {}, drawn: { signature: '<base64 of a PNG>' } },
    errors: [
      'link-unknown',
      'link-finished',
      'link-cancelled',
      'under-review',
      'mandate-replaced',
      'mandate-changed',
      'signer-missing',
      'bad-encoding',
      'empty',
      'busy',
      'image-too-large',
      'not-an-image',
      'unreadable-image',
      'too-complex',
      'details-unconfirmed',
    ],
  },
  'post /reg/:ref/api/agreement': {
    description: "The wizard's upload of a mandate signed elsewhere.",
    examples: { 'a signed PDF': { data: '<base64 of the signed PDF>' } },
    errors: [
      'link-unknown',
      'link-finished',
      'link-cancelled',
      'under-review',
      'mandate-replaced',
      'signer-missing',
      ...SIGNED_PDF_REFUSALS,
      'details-unconfirmed',
    ],
  },
  'post /reg/:ref/api/confirm': {
    description: "The wizard's submission for review.",
    errors: [
      'link-unknown',
      'link-finished',
      'link-cancelled',
      'incomplete',
      'not-waiting',
      'not-yet',
      'not-running',
      'unavailable',
      'details-unconfirmed',
    ],
  },

  'get /smp/:participant': {
    description: "The participant's SMP ServiceGroup (Peppol SMP 1.x), read by Peppol access points.",
  },
  'get /smp/:participant/services/:doctype': { description: 'The signed ServiceMetadata of one document type.' },
  'get /smp/businesscard/:participant': {
    description: "The participant's business card, read by the Peppol Directory.",
  },
  'get /metrics': { description: 'Prometheus metrics (with `METRICS_TOKEN`, as a bearer token).' },
  'get /docs/': { description: 'This reference, interactive.' },
  'get /apps/gov-fr/review/': {
    description: "The operator's review page; its data needs a key with the `approvals` scope.",
  },
  'get /openapi.json': {
    description: 'This document: OpenAPI 3.1, generated from the schemas the API validates with.',
  },
};

/** Every code the operation can answer: its own, and those of every operation of its kind. */
export function errorsOf(op: Operation): ProblemCodeName[] {
  const doc = OPERATION_DOCS[`${op.method} ${op.path}`];
  const codes: ProblemCodeName[] = ['internal', 'rate-limited'];
  if (op.scope) codes.push('unauthenticated', 'forbidden');
  if (op.params || op.query || op.body) codes.push('invalid-request');
  if (op.params && !op.path.startsWith('/reg/')) codes.push('not-found');
  if (op.body) codes.push('malformed-json', 'unsupported-media-type', 'too-large');
  if (op.method === 'post' && op.scope)
    codes.push('idempotency-key-invalid', 'idempotency-key-reused', 'idempotency-key-in-flight');
  return [...new Set([...codes, ...(doc?.errors ?? [])])];
}
