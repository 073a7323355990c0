/**
 * The OpenAPI 3.1 document, built from the route contracts of `@weave/sdk/protocol` that the
 * server actually registers, so it cannot drift from the routes: full request and answer
 * schemas (named ones under `components.schemas`), the error answers each route can give, the
 * bearer scheme, `Idempotency-Key` on the writes that take one, and examples.
 */
import { ERROR_STATUS, ErrorAnswer, Id, Name } from '@weave/sdk/protocol';
import type { ErrorCode, RouteContract, Schema } from '@weave/sdk/protocol';
import { VERSION } from '../version.js';

/** What any route can answer, whatever it does. */
const EVERY_ROUTE: readonly ErrorCode[] = [
  'unauthenticated',
  'permission_denied',
  'not_found',
  'internal',
  'unavailable',
];
const WITH_BODY: readonly ErrorCode[] = [
  'malformed_json',
  'invalid_argument',
  'payload_too_large',
  'unsupported_media_type',
];
const WITH_KEY: readonly ErrorCode[] = ['invalid_argument', 'idempotency_conflict'];

export function errorCodesOf(contract: RouteContract): ErrorCode[] {
  const params = contract.path.includes('{') || contract.query !== undefined;
  const codes = new Set<ErrorCode>([
    ...EVERY_ROUTE,
    ...(contract.body === undefined ? [] : WITH_BODY),
    ...(contract.operation === undefined ? [] : WITH_KEY),
    ...(params ? (['invalid_argument'] as const) : []),
    ...contract.errors,
  ]);
  return [...codes].sort((a, b) => ERROR_STATUS[a] - ERROR_STATUS[b] || a.localeCompare(b));
}

function pathParams(path: string): string[] {
  return [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1] ?? '');
}

/** Path parameters that are ids; the others are names. */
const ID_PARAMS = new Set(['task', 'attempt', 'subscription', 'id', 'version']);

/** What a client sees for each code, as an example of the one error shape. */
const ERROR_EXAMPLES: Partial<Record<ErrorCode, { message: string; details?: object }>> = {
  malformed_json: { message: 'the body is not valid JSON: …', details: { position: 17 } },
  invalid_argument: {
    message: '$.retry.max_attempts must be between 1 and 100 (got the number 0)',
    details: { path: '$.retry.max_attempts' },
  },
  unauthenticated: { message: 'the key is missing, unknown, revoked or expired' },
  permission_denied: {
    message: 'the key lacks scope tasks:submit',
    details: { scope: 'tasks:submit' },
  },
  not_found: { message: 'queue emails not found', details: { path: '$.queue' } },
  already_exists: { message: 'queue emails already exists', details: { path: '$.name' } },
  idempotency_conflict: { message: 'the Idempotency-Key was used with another request' },
  payload_too_large: { message: 'the request body is too large', details: { limit: 2097152 } },
  quota_exceeded: { message: 'the application quota of active tasks is full' },
  cursor_expired: { message: 'the cursor is behind retention', details: { earliest_seq: '120' } },
};

function parametersOf(contract: RouteContract) {
  const params = ['ns', ...pathParams(contract.path)].map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: ID_PARAMS.has(name) ? Id : Name,
    ...(name === 'ns' ? { description: 'namespace name' } : {}),
  }));
  const query = Object.entries(contract.query ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: false,
    schema,
  }));
  const key =
    contract.operation === undefined
      ? []
      : [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description:
              'A replay returns the original status and body with `Idempotent-Replayed: true`; ' +
              'the same key with another request is 409 idempotency_conflict',
            schema: { type: 'string', pattern: '^[\\x20-\\x7e]{1,200}$' },
          },
        ];
  return [...params, ...query, ...key];
}

function errorResponses(contract: RouteContract) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(contract)) {
    byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, codes]) => [
      String(status),
      {
        description: codes.join(', '),
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/Error' },
            example: { error: { code: codes[0], ...exampleOf(codes[0]) } },
          },
        },
      },
    ]),
  );
}

function exampleOf(code: ErrorCode | undefined) {
  return (code === undefined ? undefined : ERROR_EXAMPLES[code]) ?? { message: `(${code})` };
}

function json(schema: Schema, example: unknown) {
  return {
    'application/json': { schema, ...(example === undefined ? {} : { example }) },
  };
}

function operationOf(contract: RouteContract) {
  return {
    operationId: contract.id,
    tags: [contract.tag],
    summary: contract.summary,
    ...(contract.description === undefined ? {} : { description: contract.description }),
    'x-weave-scope': contract.scope,
    ...(contract.operation === undefined ? {} : { 'x-weave-operation': contract.operation }),
    ...(contract.longPoll === true ? { 'x-weave-long-poll': true } : {}),
    parameters: parametersOf(contract),
    ...(contract.body === undefined
      ? {}
      : {
          requestBody: {
            required: contract.bodyOptional !== true,
            content: json(contract.body, contract.example?.body),
          },
        }),
    responses: {
      [String(contract.status)]: {
        description: contract.summary,
        content: json(contract.answer, contract.example?.answer),
      },
      ...Object.fromEntries(
        Object.entries(contract.otherStatuses ?? {}).map(([status, when]) => [
          status,
          { description: when, content: json(contract.answer, undefined) },
        ]),
      ),
      ...errorResponses(contract),
    },
  };
}

/**
 * Named schemas (`title`) move to `components.schemas` and are replaced by a `$ref`; two
 * different schemas under one name are a bug in the protocol.
 */
function hoistNamed(value: unknown, components: Map<string, unknown>, top = false): unknown {
  if (Array.isArray(value)) {
    return value.map((v) => hoistNamed(v, components));
  }
  if (typeof value !== 'object' || value === null) {
    return value;
  }
  const entries = Object.entries(value).map(([k, v]) => [k, hoistNamed(v, components)] as const);
  const hoisted = Object.fromEntries(entries) as Record<string, unknown>;
  const title = hoisted.title;
  if (top || typeof title !== 'string') {
    return hoisted;
  }
  const known = components.get(title);
  if (known !== undefined && JSON.stringify(known) !== JSON.stringify(hoisted)) {
    throw new Error(`two different schemas are named ${title}`);
  }
  components.set(title, hoisted);
  return { $ref: `#/components/schemas/${title}` };
}

const OPERATIONS_PATHS = {
  '/healthz': {
    get: {
      operationId: 'healthz',
      tags: ['Operations'],
      summary: 'Liveness: the process answers',
      security: [],
      responses: { '200': { description: 'alive' } },
    },
  },
  '/readyz': {
    get: {
      operationId: 'readyz',
      tags: ['Operations'],
      summary: 'Readiness: the database answers',
      security: [],
      responses: {
        '200': { description: 'ready' },
        '503': {
          description: 'unavailable',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
    },
  },
  '/metrics': {
    get: {
      operationId: 'metrics',
      tags: ['Operations'],
      summary: 'Prometheus metrics (text exposition format; docs/operations.md "Metrics")',
      description:
        'No API key. When the server has a metrics token (WEAVE_METRICS_TOKEN), ' +
        'Authorization: Bearer <token> is required.',
      security: [],
      responses: {
        '200': {
          description: 'the metrics',
          content: { 'text/plain; version=0.0.4; charset=utf-8': { schema: { type: 'string' } } },
        },
        '401': {
          description: 'the server has a metrics token and it was not given',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
    },
  },
  '/v1/openapi.json': {
    get: {
      operationId: 'openapi',
      tags: ['Operations'],
      summary: 'This document',
      security: [],
      responses: { '200': { description: 'the OpenAPI 3.1 document' } },
    },
  },
};

export function buildOpenApi(contracts: readonly RouteContract[]) {
  const paths: Record<string, Record<string, unknown>> = { ...OPERATIONS_PATHS };
  for (const contract of contracts) {
    const key = `/v1/namespaces/{ns}${contract.path}`;
    paths[key] = { ...paths[key], [contract.method.toLowerCase()]: operationOf(contract) };
  }
  const components = new Map<string, unknown>();
  const hoistedPaths = hoistNamed(paths, components);
  const error = hoistNamed(ErrorAnswer, components, true);
  components.set('Error', error);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Weave API',
      version: VERSION,
      description:
        'Durable workflows, tasks and result streams. JSON numbers keep their exact text; ids ' +
        'and revisions are decimal strings; instants are RFC 3339 UTC with microseconds.',
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: Object.fromEntries([...components].sort(([a], [b]) => a.localeCompare(b))),
    },
    security: [{ bearer: [] }],
    paths: hoistedPaths,
  };
}
