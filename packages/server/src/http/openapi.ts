/**
 * The OpenAPI 3.1 document, generated from the route table so that it cannot drift from the
 * routes that are actually registered.
 */
import { ERROR_STATUS } from '@weave/sdk/protocol';
import type { Route } from './route.js';

const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
        message: { type: 'string' },
        details: { type: 'object' },
      },
    },
  },
};

function toOpenApiPath(path: string): string {
  return `/v1/namespaces/{ns}${path.replace(/:([a-z_]+)/g, '{$1}')}`;
}

function operationOf(route: Route) {
  const params = [...route.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1] ?? '');
  return {
    summary: route.summary,
    'x-weave-scope': route.scope,
    ...(route.operation === undefined ? {} : { 'x-weave-operation': route.operation }),
    parameters: [
      { name: 'ns', in: 'path', required: true, schema: { type: 'string' } },
      ...params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
      ...(route.queryParams ?? []).map((name) => ({
        name,
        in: 'query',
        required: false,
        schema: { type: 'string' },
      })),
      ...(route.operation === undefined
        ? []
        : [
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: false,
              schema: { type: 'string', maxLength: 200 },
            },
          ]),
    ],
    ...(route.requestSchema === undefined
      ? {}
      : {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: route.requestSchema } },
          },
        }),
    responses: {
      '2XX': {
        description: 'success',
        content: { 'application/json': { schema: { type: 'object' } } },
      },
      default: {
        description: 'error',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    },
  };
}

export function buildOpenApi(routes: readonly Route[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const key = toOpenApiPath(route.path);
    paths[key] = { ...paths[key], [route.method.toLowerCase()]: operationOf(route) };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Weave API', version: '1' },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { Error: ERROR_SCHEMA },
    },
    security: [{ bearer: [] }],
    paths,
  };
}
