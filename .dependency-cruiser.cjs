// The layers the README's architecture section describes, checked in the test command (`npm run lint:layers`).
// From the bottom: contract (the job contract everyone shares) < platform < domain < integrations < web <
// activities, api < worker < bin. The workflows stand beside them on the contract alone, and only the worker (and
// the tests) import them. A folder imports only from the layers below it.
const SERVICE = '^(contract|workflows|platform|domain|integrations|web|activities|api|worker|bin|bench|scripts)/';
/** The browser pages' code: each page's own, and the kit they share. */
const PAGE_CODE = '^web/(page-kit|[^/]+/page)/';

/** A rule forbidding `from` to import any of `to` (folders at the top, or under them). */
const below = (name, from, to, comment) => ({
  name,
  comment,
  severity: 'error',
  from: { path: `^(${from})` },
  to: { path: `^(${to.join('|')})/` },
});

module.exports = {
  forbidden: [
    {
      name: 'contract-at-the-bottom',
      comment:
        'The job contract imports nothing of ours but itself, and of Temporal only the signal and update definitions ' +
        '(@temporalio/workflow, which the client may load) and types.',
      severity: 'error',
      from: { path: '^contract/' },
      to: { pathNot: ['^contract/', '^node_modules/@temporalio/workflow/'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'contract-types',
      comment: 'What the contract imports for its types only comes from Temporal packages or the contract.',
      severity: 'error',
      from: { path: '^contract/' },
      to: { pathNot: ['^contract/', '^node_modules/@temporalio/'], dependencyTypes: ['type-only'] },
    },
    {
      name: 'workflows-run-by-the-worker-only',
      comment:
        'Workflow code is loaded by the worker (its bundle) and tested; everything else reaches a workflow through ' +
        'the contract (its type name, input, signals, search attributes).',
      severity: 'error',
      from: { path: SERVICE, pathNot: ['^workflows/', '^worker/'] },
      to: { path: '^workflows/' },
    },
    {
      name: 'workflow-sandbox',
      comment:
        'Workflow code runs in the deterministic sandbox: it imports only @temporalio/workflow, the contract and other ' +
        'workflow code; types (erased at build) may come from any Temporal package.',
      severity: 'error',
      from: { path: '^workflows/' },
      to: {
        pathNot: ['^workflows/', '^contract/', '^node_modules/@temporalio/workflow/'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'workflow-sandbox-types',
      comment:
        'What workflow code imports for its types only comes from Temporal packages, the contract or workflow code.',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { pathNot: ['^workflows/', '^contract/', '^node_modules/@temporalio/'], dependencyTypes: ['type-only'] },
    },
    {
      name: 'independent-simulators',
      comment: 'A simulator is an independent implementation of its protocol: it shares no code with our clients.',
      severity: 'error',
      from: { path: '^simulators/' },
      to: { path: SERVICE },
    },
    below(
      'platform-is-lowest',
      'platform/',
      ['domain', 'integrations', 'web', 'activities', 'api', 'worker', 'bin', 'bench', 'simulators'],
      'store, crypto, config and observability import no higher layer',
    ),
    below(
      'domain-below-adapters',
      'domain/',
      ['integrations', 'web', 'activities', 'api', 'worker', 'bin', 'bench', 'simulators'],
      'the domain knows no HTTP, no Temporal worker and no external client',
    ),
    below(
      'integrations-below-entry-points',
      'integrations/',
      ['web', 'activities', 'api', 'worker', 'bin', 'bench', 'simulators'],
      'clients of the outside world are used by activities and the API, never the reverse',
    ),
    below(
      'web-below-api',
      'web/',
      ['activities', 'api', 'worker', 'bin', 'bench', 'simulators'],
      'the shared HTTP module and the pages are mounted by the API, and import none of it',
    ),
    below(
      'activities-apart',
      'activities/',
      ['api', 'web', 'worker', 'bin', 'bench', 'simulators'],
      'activities are built by the worker over injected clients',
    ),
    below(
      'api-apart',
      'api/',
      ['activities', 'worker', 'bin', 'bench', 'simulators'],
      'the API starts and signals workflows through the Temporal client, never runs activities',
    ),
    below('worker-apart', 'worker/', ['api', 'web', 'bin', 'bench', 'simulators'], 'the worker serves no HTTP'),
    {
      name: 'pages-run-in-the-browser',
      comment:
        'The browser pages (web/<page>/page/, the shared web/page-kit/) import only each other, the types generated ' +
        'from our OpenAPI document and the libraries the page bundles or serves: nothing of the server.',
      severity: 'error',
      from: { path: PAGE_CODE },
      to: {
        pathNot: [
          PAGE_CODE,
          '^web/openapi/',
          '^node_modules/(openapi-fetch|openapi-typescript-helpers|pdfjs-dist|signature_pad)/',
        ],
      },
    },
    {
      name: 'one-page-each',
      comment: 'A page shares code with another through the page kit only; the kit knows no page.',
      severity: 'error',
      from: { path: '^web/(page-kit|([^/]+)/page)/' },
      to: { path: '^web/[^/]+/page/', pathNot: '^web/$2/page/' },
    },
    {
      name: 'server-apart-from-pages',
      comment: 'The server serves the pages built (dist/pages), and imports none of their code.',
      severity: 'error',
      from: { path: SERVICE, pathNot: PAGE_CODE },
      to: { path: PAGE_CODE },
    },
    {
      name: 'no-test-code-outside-tests',
      comment: 'Benchmarks and the service import no test code.',
      severity: 'error',
      from: { path: SERVICE },
      to: { path: '^test/' },
    },
    {
      name: 'no-module-cycles',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(data|\\.tools|test-artifacts|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
