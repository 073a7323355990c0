// The layer order of packages/server/ARCHITECTURE.md, checked by `npm run lint:deps`:
//   store (+ errors, periodic-loop, version) → auth → pulse/orbit → weave → metrics → http → cli (+ server, index)
// A layer imports only layers to its left; within pulse/orbit, pulse may import orbit, never the
// reverse. @weave/json and @weave/engine sit below all; @weave/sdk/protocol is shared by all.
// Type-only imports count (tsPreCompilationDeps), for cycles too.
const SERVER = 'packages/server/src/';

/** Each layer as path alternatives below packages/server/src/, lowest first. */
const LAYERS = [
  ['store', ['store/', 'errors\\.ts$', 'periodic-loop\\.ts$', 'version\\.ts$']],
  ['auth', ['auth/']],
  ['pulse-orbit', ['pulse/', 'orbit/']],
  ['weave', ['weave/']],
  ['metrics', ['metrics/']],
  ['http', ['http/']],
  ['cli', ['cli/', 'server\\.ts$', 'index\\.ts$']],
];

const inServer = (parts) => `^${SERVER}(${parts.join('|')})`;

/**
 * Pulse's result transaction calls Weave's inbox step at its place in the order (seed 000 §1
 * steps 4–5; pulse/settle-task.ts): the one upward edge, allowed from that file to that file only.
 */
const WEAVE_STEP = `^${SERVER}weave/delivery/deliver-result\\.ts$`;
const WEAVE_STEP_CALLER = `^${SERVER}pulse/settle-task\\.ts$`;

const layerRules = LAYERS.slice(0, -1).map(([name, parts], i) => ({
  name: `layer-order-${name}`,
  comment: `${name} imports only layers below it (packages/server/ARCHITECTURE.md)`,
  severity: 'error',
  from: { path: inServer(parts) },
  to: {
    path: inServer(LAYERS.slice(i + 1).flatMap(([, above]) => above)),
    ...(name === 'pulse-orbit' ? { pathNot: WEAVE_STEP } : {}),
  },
}));

export default {
  forbidden: [
    ...layerRules,
    {
      name: 'layer-order-weave-step',
      comment: 'only pulse/settle-task.ts calls up into weave, for the result transaction',
      severity: 'error',
      from: { path: inServer(['pulse/', 'orbit/']), pathNot: WEAVE_STEP_CALLER },
      to: { path: WEAVE_STEP },
    },
    {
      name: 'weave-model-pure',
      comment:
        'weave/model is pure (row types, mappings, status rules; runtime.md §10): of the server ' +
        'it imports only store/values.ts and store/schema.ts',
      severity: 'error',
      from: { path: `^${SERVER}weave/model/` },
      to: {
        path: `^${SERVER}`,
        pathNot: [`^${SERVER}weave/model/`, `^${SERVER}store/(values|schema)\\.ts$`],
      },
    },
    {
      name: 'weave-model-no-node',
      comment: 'weave/model does no I/O: no node: modules',
      severity: 'error',
      from: { path: `^${SERVER}weave/model/` },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'orbit-not-pulse',
      comment: 'pulse may import orbit (results append to streams); orbit never imports pulse',
      severity: 'error',
      from: { path: inServer(['orbit/']) },
      to: { path: inServer(['pulse/']) },
    },
    {
      name: 'http-store-only-with-tx',
      comment:
        'http reaches store only through the transaction helpers (store/with-tx.ts, store/tx-group.ts)',
      severity: 'error',
      from: { path: inServer(['http/']) },
      to: { path: inServer(['store/']), pathNot: `^${SERVER}store/(with-tx|tx-group)\\.ts$` },
    },
    {
      name: 'no-cycle',
      comment: 'no import cycle between files, type-only imports included',
      severity: 'error',
      from: { path: '^packages/[^/]+/src/' },
      to: { circular: true },
    },
    {
      name: 'no-folder-cycle',
      comment: 'no cycle between folders of the server',
      severity: 'error',
      scope: 'folder',
      from: { path: `^${SERVER}` },
      to: { circular: true },
    },
    {
      name: 'engine-json-below-all',
      comment: '@weave/engine and @weave/json import nothing of the server or the sdk',
      severity: 'error',
      from: { path: '^packages/(engine|json)/src/' },
      to: { path: ['^packages/(server|sdk)/', '^@weave/(server|sdk)'] },
    },
    {
      name: 'json-below-engine',
      comment: '@weave/json has no dependency of ours',
      severity: 'error',
      from: { path: '^packages/json/src/' },
      to: { path: ['^packages/engine/', '^@weave/engine'] },
    },
    {
      name: 'server-sdk-protocol-only',
      comment:
        'of the sdk, the server imports only the shared wire constants (@weave/sdk/protocol); ' +
        'the commands that call a running server (cli/) are clients and use the SDK client',
      severity: 'error',
      from: { path: `^${SERVER}`, pathNot: `^${SERVER}cli/` },
      to: {
        path: ['^packages/sdk/', '^@weave/sdk($|/)'],
        pathNot: ['^packages/sdk/(build/)?src/protocol/', '^@weave/sdk/protocol$'],
      },
    },
    {
      name: 'console-sdk-json-only',
      comment:
        'the console (browser code) reaches the server only over HTTP through @weave/sdk: of ' +
        'our packages it imports @weave/sdk and @weave/json only',
      severity: 'error',
      from: { path: '^packages/console/src/' },
      to: {
        path: [
          '^packages/(server|engine)/',
          '^@weave/(server|engine)',
          '^packages/sdk/(build/)?src/protocol/',
        ],
      },
    },
    {
      name: 'sdk-not-server',
      comment: 'the sdk never imports the server',
      severity: 'error',
      from: { path: '^packages/sdk/src/' },
      to: { path: ['^packages/server/', '^@weave/server'] },
    },
  ],
  options: {
    // Workspace packages resolve (through node_modules symlinks) to their build output: kept as
    // nodes, so an import of another package is seen, but not followed, so each package is
    // checked on its own sources. (Never `exclude` them: that drops the import itself. Before a
    // build they stay unresolved, as `@weave/...`, which the package rules match too.)
    doNotFollow: { path: ['node_modules', '/build/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: `${import.meta.dirname}/packages/server/tsconfig.json` },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['types', 'import', 'default'],
    },
  },
};
