// Lint of the whole tree (`npm run lint`, in the test command): typescript-eslint's recommended rules with type
// information for the promise rules, the workflow sandbox's import bans, SQL only in the store. Layout rules
// between folders are dependency-cruiser's (.dependency-cruiser.cjs); formatting is Prettier's.
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import { builtinModules } from 'node:module';

const NODE_MODULES = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

export default tseslint.config(
  {
    // dist/: built output (the pages' bundles, the workflow bundle). The pages' code is linted where it is written.
    ignores: ['node_modules/**', 'data/**', '.tools/**', 'test-artifacts/**', 'dist/**', 'api/docs/**', 'spec/**'],
  },
  tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': [
        'error',
        { checksVoidReturn: { arguments: false, attributes: false } },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // As temporalio/samples-typescript's expense sample: workflow code cannot reach Node, the network or activities.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: NODE_MODULES,
          patterns: [
            {
              group: ['@temporalio/activity', '@temporalio/client', '@temporalio/worker', '@temporalio/testing'],
              message: 'workflow code runs in the sandbox: use @temporalio/workflow',
            },
          ],
        },
      ],
    },
  },
  {
    // Small workflow rooms: a runner that grows past this is split by concern (issue 42), not let grow.
    files: ['workflows/**/*.ts'],
    rules: { 'max-lines': ['error', { max: 120, skipBlankLines: false, skipComments: false }] },
  },
  {
    // The browser pages (bundled by bin/build-pages.ts) are typed against the DOM by their own project (its lib gives
    // the browser's globals, and TypeScript refuses any other name); they reach nothing of Node, and nothing but the
    // page kit, the API's generated types and the page libraries (.dependency-cruiser.cjs).
    files: ['web/page-kit/**/*.ts', 'web/*/page/**/*.ts'],
    languageOptions: { parserOptions: { projectService: false, project: './tsconfig.pages.json' } },
    rules: { 'no-restricted-imports': ['error', { paths: NODE_MODULES }] },
  },
  {
    // Tests read JSON answers of any shape.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // All SQL lives in platform/store: elsewhere a query goes through one of its functions.
    files: ['**/*.ts'],
    ignores: ['platform/store/**', 'test/**', 'simulators/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='query'][arguments.0.type=/^(Literal|TemplateLiteral)$/]",
          message: 'SQL lives in platform/store: call one of its functions',
        },
      ],
    },
  },
  prettier,
);
