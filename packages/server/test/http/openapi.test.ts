/**
 * The OpenAPI document (issue 10 §2): `/v1/openapi.json` as served is valid OpenAPI 3.1 by a
 * standard validator (@seriousme/openapi-schema-validator), carries full request and answer
 * schemas, the errors of each route, the bearer scheme, `Idempotency-Key` on the writes that
 * take one and examples on the main routes; and a standard generator (openapi-typescript) turns
 * it into types that a small client type-checks against (tsc), wrong bodies refused.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import openapiTS, { astToString } from 'openapi-typescript';
import { ROUTES } from '@weave/sdk/protocol';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';

type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
  security: unknown[];
  openapi: string;
};
type Operation = {
  operationId: string;
  parameters?: { name: string; in: string }[];
  requestBody?: {
    required?: boolean;
    content: { 'application/json': { schema: unknown; example?: unknown } };
  };
  responses: Record<
    string,
    { description?: string; content?: { 'application/json': { example?: unknown } } }
  >;
  'x-weave-operation'?: string;
};

const MAIN_ROUTES = [
  'submitTask',
  'claimTasks',
  'completeAttempt',
  'completeMany',
  'createQueue',
  'createApplication',
  'createCredential',
  'createStream',
  'readStream',
  'createSubscription',
  'createSchedule',
  'reviewTask',
];

function operations(doc: Doc): Operation[] {
  return Object.values(doc.paths).flatMap((item) => Object.values(item));
}

describe('the OpenAPI document', () => {
  let t: TestServer;
  let doc: Doc;
  let text: string;

  before(async () => {
    t = await startTestServer('sqlite');
    const response = await fetch(`${t.server.url}/v1/openapi.json`);
    assert.equal(response.status, 200);
    text = await response.text();
    doc = JSON.parse(text) as Doc;
  });
  after(() => t.close());

  test('is valid OpenAPI 3.1 by @seriousme/openapi-schema-validator', async () => {
    const result = await new Validator().validate(JSON.parse(text) as Record<string, unknown>);
    assert.deepEqual(result.errors ?? [], []);
    assert.equal(result.valid, true);
    assert.equal(doc.openapi, '3.1.0');
  });

  test('has one operation per route contract, with full request and answer schemas', () => {
    const ids = operations(doc).map((o) => o.operationId);
    for (const contract of ROUTES) {
      assert.ok(ids.includes(contract.id), contract.id);
      const op = doc.paths[`/v1/namespaces/{ns}${contract.path}`]?.[contract.method.toLowerCase()];
      assert.ok(op, contract.id);
      const success = op.responses[String(contract.status)];
      assert.ok(success?.content, `${contract.id} answers ${contract.status} with a schema`);
      const answer = JSON.stringify(success.content['application/json']);
      assert.doesNotMatch(answer, /"schema":\{"type":"object"\}/, `${contract.id}: bare object`);
      if (contract.body !== undefined) {
        const body = JSON.stringify(op.requestBody?.content['application/json'].schema);
        assert.match(body, /"\$ref"|"properties"|"oneOf"/, `${contract.id}: request schema`);
      }
    }
  });

  test('lists the errors each route can give, by status, with the one error schema', () => {
    for (const op of operations(doc).filter(
      (o) => !['healthz', 'readyz', 'metrics', 'openapi'].includes(o.operationId),
    )) {
      for (const status of ['401', '403', '404', '503']) {
        assert.ok(op.responses[status], `${op.operationId} → ${status}`);
      }
      if (op.requestBody !== undefined) {
        assert.ok(op.responses['400'] && op.responses['413'], `${op.operationId} → 400, 413`);
      }
    }
    const submit = operations(doc).find((o) => o.operationId === 'submitTask');
    assert.ok(submit?.responses['429'], 'submit can answer 429 (quota_exceeded, queue_full)');
    const read = operations(doc).find((o) => o.operationId === 'readStream');
    assert.ok(read?.responses['410'], 'a stream read can answer 410 cursor_expired');
    assert.ok(doc.components.schemas.Error);
  });

  test('marks the pause, resume and cancel bodies optional, as the server accepts none', () => {
    for (const id of ['pauseInstance', 'resumeInstance', 'cancelInstance']) {
      const op = operations(doc).find((o) => o.operationId === id);
      assert.ok(op?.requestBody, `${id} documents its body`);
      assert.notEqual(op.requestBody.required, true, `${id}: the body may be omitted`);
    }
  });

  test('lists 409 invalid_state on a subscription ack (a webhook subscription refuses it)', () => {
    const ack = operations(doc).find((o) => o.operationId === 'ackSubscription');
    const codes = ack?.responses['409']?.description?.split(', ') ?? [];
    assert.ok(codes.includes('invalid_state'), `ackSubscription 409 lists: ${codes.join(', ')}`);
  });

  test('has the bearer scheme and Idempotency-Key exactly on the writes that take one', () => {
    assert.deepEqual(doc.components.securitySchemes.bearer, { type: 'http', scheme: 'bearer' });
    assert.deepEqual(doc.security, [{ bearer: [] }]);
    for (const op of operations(doc)) {
      const hasKey = (op.parameters ?? []).some(
        (p) => p.in === 'header' && p.name === 'Idempotency-Key',
      );
      assert.equal(hasKey, op['x-weave-operation'] !== undefined, op.operationId);
    }
  });

  test('has an example on each main route', () => {
    for (const id of MAIN_ROUTES) {
      const op = operations(doc).find((o) => o.operationId === id);
      assert.ok(op, id);
      const examples = [
        op.requestBody?.content['application/json'].example,
        ...Object.values(op.responses).map((r) => r.content?.['application/json'].example),
      ].filter(
        (e) => e !== undefined && JSON.stringify(e).length > 2 && !/"code"/.test(JSON.stringify(e)),
      );
      assert.ok(examples.length > 0, `${id} has an example`);
    }
  });

  test('openapi-typescript generates types that a small client type-checks against', async () => {
    const ast = await openapiTS(JSON.parse(text) as Parameters<typeof openapiTS>[0]);
    const dir = mkdtempSync(join(tmpdir(), 'weave-openapi-'));
    try {
      writeFileSync(join(dir, 'api.d.ts'), astToString(ast));
      writeFileSync(join(dir, 'client.ts'), CLIENT);
      writeFileSync(join(dir, 'wrong.ts'), WRONG);
      const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
      const check = (file: string) => {
        const config = join(dir, `tsconfig.${file}.json`);
        writeFileSync(
          config,
          JSON.stringify({
            compilerOptions: {
              strict: true,
              exactOptionalPropertyTypes: true,
              noEmit: true,
              target: 'es2022',
              module: 'es2022',
              moduleResolution: 'bundler',
              lib: ['es2022', 'dom'],
              types: [],
            },
            files: [file],
          }),
        );
        return spawnSync(process.execPath, [tsc, '-p', config], { encoding: 'utf8' });
      };
      const good = check('client.ts');
      assert.equal(good.status, 0, good.stdout + good.stderr);
      const bad = check('wrong.ts');
      assert.notEqual(bad.status, 0, 'a wrong body must not type-check');
      // One error per wrong line: the unknown member, the bad outcome, the string max_tasks.
      for (const line of [6, 7, 8]) {
        assert.match(bad.stdout, new RegExp(`wrong\\.ts\\(${line},`), `line ${line} is refused`);
      }
      assert.match(bad.stdout, /'nope' does not exist/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A small typed client over the generated `paths`, as a user of openapi-typescript writes. */
const CLIENT = `
import type { components, paths } from './api.js';

type Json<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;
type Answer<P extends keyof paths, M extends keyof paths[P], S extends number> = paths[P][M] extends {
  responses: { [K in S]: { content: { 'application/json': infer A } } };
}
  ? A
  : never;

async function call<P extends keyof paths, M extends keyof paths[P] & string, S extends number>(
  path: P,
  method: M,
  _status: S,
  body: Json<P, M>,
): Promise<Answer<P, M, S>> {
  const response = await fetch(String(path), { method, body: JSON.stringify(body) });
  return (await response.json()) as Answer<P, M, S>;
}

export async function demo(): Promise<string> {
  const { task } = await call('/v1/namespaces/{ns}/queues/{queue}/tasks', 'post', 201, {
    input: { to: 'ada@example.com' },
    timeout: 'PT1H',
    retry: { max_attempts: 5, backoff_coefficient: 2 },
  });
  const status: components['schemas']['Task']['status'] = task.status;
  const claimed = await call('/v1/namespaces/{ns}/queues/{queue}/claims', 'post', 200, {
    worker_id: 'w1',
    max_tasks: 10,
    wait_ms: 20000,
  });
  for (const c of claimed.tasks) {
    await call('/v1/namespaces/{ns}/tasks/{task}/attempts/{attempt}/complete', 'post', 200, {
      permit: c.permit,
      outcome: 'failed',
      error: { code: 'card_declined', retryable: false },
    });
  }
  const page = await call('/v1/namespaces/{ns}/streams/{stream}/events', 'get', 200, undefined as never);
  const error: components['schemas']['Error'] = { error: { code: 'queue_full', message: 'full' } };
  return status + page.next_after + error.error.code;
}
`;

/** The same client with bodies the document refuses. */
const WRONG = `
import type { paths } from './api.js';
type Submit = paths['/v1/namespaces/{ns}/queues/{queue}/tasks']['post']['requestBody'];
type Complete = paths['/v1/namespaces/{ns}/tasks/{task}/attempts/{attempt}/complete']['post']['requestBody'];
type Claim = paths['/v1/namespaces/{ns}/queues/{queue}/claims']['post']['requestBody'];
export const a: NonNullable<Submit>['content']['application/json'] = { input: 1, nope: true };
export const b: NonNullable<Complete>['content']['application/json'] = { permit: 'p', outcome: 'maybe' };
export const c: NonNullable<Claim>['content']['application/json'] = { worker_id: 'w', max_tasks: '10' };
`;
