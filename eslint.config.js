// One flat config for the whole repo (STYLE.md §9). Boundary rules per folder (STYLE.md §1, §2).
// The layer order and cycles are checked by dependency-cruiser (`npm run lint:deps`,
// .dependency-cruiser.mjs; packages/server/ARCHITECTURE.md): rules layer-order-<layer>,
// layer-order-weave-step, weave-model-pure, weave-model-no-node, orbit-not-pulse,
// http-store-only-with-tx, no-cycle, no-folder-cycle, server-sdk-protocol-only,
// engine-json-below-all, json-below-engine, sdk-not-server, console-sdk-json-only.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

const noIoInEngine = {
  files: ['packages/engine/src/**/*.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          { group: ['node:*', 'fs', 'path', 'http', 'crypto'], message: 'the engine does no I/O' },
          {
            group: ['@weave/server', '@weave/sdk', 'kysely'],
            message: 'engine depends only on @weave/json',
          },
        ],
      },
    ],
    'no-restricted-properties': [
      'error',
      { object: 'Date', property: 'now', message: 'the engine reads no clock (snapshot.now)' },
      { object: 'Math', property: 'random', message: 'the engine draws no random numbers' },
      { object: 'JSON', property: 'parse', message: 'use @weave/json' },
      { object: 'JSON', property: 'stringify', message: 'use @weave/json' },
    ],
    'no-restricted-syntax': [
      'error',
      {
        selector: "NewExpression[callee.name='Date'][arguments.length=0]",
        message: 'no clock in the engine',
      },
    ],
    'no-restricted-globals': ['error', 'setTimeout', 'setInterval', 'process'],
  },
};

/** weave/model is pure like the engine (runtime.md §10): no clock, no randomness, exact JSON. */
const noClockInWeaveModel = {
  files: ['packages/server/src/weave/model/**/*.ts'],
  rules: {
    'no-restricted-properties': noIoInEngine.rules['no-restricted-properties'],
    'no-restricted-syntax': noIoInEngine.rules['no-restricted-syntax'],
    'no-restricted-globals': noIoInEngine.rules['no-restricted-globals'],
  },
};

export default tseslint.config(
  {
    ignores: [
      '**/build/**',
      '**/node_modules/**',
      '.weave/**',
      'packages/server/bin/**',
      'scripts/**',
      '.ci/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          // node:test's test()/describe() return promises the runner itself tracks.
          allowForKnownSafeCalls: [
            { from: 'package', name: ['test', 'describe', 'it', 'suite'], package: 'node:test' },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      curly: 'error',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // examples/: plain Node 20 scripts (no TypeScript, no type-checking), run as the README shows.
    files: ['examples/**/*.mjs'],
    languageOptions: {
      globals: Object.fromEntries(
        ['console', 'process', 'setTimeout', 'clearTimeout', 'AbortController', 'URL', 'fetch'].map(
          (name) => [name, 'readonly'],
        ),
      ),
    },
  },
  noIoInEngine,
  noClockInWeaveModel,
  {
    files: ['packages/json/src/**/*.ts', 'packages/json/test/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['@weave/*'] }],
    },
  },
  {
    files: ['packages/sdk/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@weave/server', '@weave/server/*', 'kysely', 'fastify', '@weave/*/src/*'],
              message: 'the SDK depends only on @weave/json and fetch',
            },
          ],
        },
      ],
    },
  },
  {
    // The console is browser code that talks only to the public HTTP API through the SDK
    // (STYLE.md §1): of ours it imports @weave/sdk and @weave/json, never the server, the
    // engine, the SDK's wire internals or node: modules; edited JSON goes through @weave/json.
    files: ['packages/console/src/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@weave/server', '@weave/server/*', '@weave/engine', '@weave/engine/*'],
              message: 'the console talks to the server only through @weave/sdk',
            },
            { group: ['@weave/sdk/*', '@weave/*/src/*'], message: 'import @weave/sdk itself' },
            { group: ['node:*'], message: 'the console runs in the browser' },
          ],
        },
      ],
      'no-restricted-properties': [
        'error',
        {
          object: 'JSON',
          property: 'parse',
          message: 'parse with @weave/json: numbers stay exact',
        },
      ],
    },
  },
  {
    files: ['packages/server/src/http/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['kysely'], message: 'HTTP handlers call services, never SQL' }] },
      ],
    },
  },
  prettier,
);
