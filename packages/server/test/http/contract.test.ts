/**
 * One source per route (issue 10 §1): the route table registers exactly the protocol's
 * contracts; for every route with a body, the exact-JSON reader and the body schema agree —
 * every member the schema names is accepted by the reader, every member the reader reads is in
 * the schema, and an unknown member is refused by both; and the answer check that the test
 * servers run really refuses a drifted presenter.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonValue } from '@weave/json';
import { ROUTES } from '@weave/sdk/protocol';
import type { Schema } from '@weave/sdk/protocol';
import { isWeaveError } from '../../src/errors.js';
import { allRoutes } from '../../src/http/routes/index.js';
import type { Route, RouteContext } from '../../src/http/route.js';
import { schemaErrors } from '../support/answer-schemas.js';
import { checkedRoutes } from '../support/checked-routes.js';
import { objectPaths, samplesOf, withUnknownMember } from '../support/schema-samples.js';

const withBody = allRoutes.filter((r) => r.contract.body !== undefined);
const withoutBody = allRoutes.filter((r) => r.contract.body === undefined);

function name(route: Route): string {
  return `${route.contract.method} ${route.contract.path}`;
}

/** What the reader throws, as `code @ path`, or `accepted`. */
function readerVerdict(route: Route, body: JsonValue | undefined): string {
  try {
    const input = route.parse(body) as { invalid?: readonly { error: unknown }[] } | undefined;
    // Many completions: a bad item is refused on its own, in the answer, not with a 400.
    const [refused] = input?.invalid ?? [];
    if (refused !== undefined) {
      throw refused.error;
    }
    return 'accepted';
  } catch (e: unknown) {
    if (isWeaveError(e)) {
      return `${e.code} @ ${String(e.details.path)}: ${e.message}`;
    }
    throw e;
  }
}

/** `$.completions[0].permit` → `$.completions[].permit` (member paths ignore indexes). */
function memberPath(path: string): string {
  return path.replace(/\[[0-9]+\]/g, '[]');
}

describe('one source per route', () => {
  test('the server registers every protocol contract exactly once, and nothing else', () => {
    const registered = allRoutes.map((r) => r.contract.id).sort();
    assert.deepEqual(registered, ROUTES.map((c) => c.id).sort());
    assert.equal(new Set(registered).size, registered.length, 'route ids are unique');
    const keys = allRoutes.map(name);
    assert.equal(new Set(keys).size, keys.length, 'method + path are unique');
    for (const route of allRoutes) {
      assert.ok(ROUTES.includes(route.contract), `${name(route)} uses the protocol's object`);
    }
  });

  test('every route that takes Idempotency-Key names its receipt operation uniquely', () => {
    const operations = allRoutes.flatMap((r) => r.contract.operation ?? []);
    assert.equal(new Set(operations).size, operations.length);
    // Every write that creates or acts takes a key; the worker calls are idempotent by their
    // permit instead (a re-sent identical completion replays its receipt).
    for (const { contract } of allRoutes) {
      const acts = contract.method !== 'GET' && contract.tag !== 'Workers';
      assert.equal(contract.operation !== undefined, acts, `${contract.method} ${contract.path}`);
    }
  });

  for (const route of withBody) {
    const schema = route.contract.body as Readonly<Record<string, unknown>>;
    describe(`reader and schema agree: ${name(route)}`, () => {
      const samples = samplesOf(schema);

      test('every sample is valid by the schema (a standard validator)', () => {
        for (const sample of samples) {
          assert.deepEqual(schemaErrors(schema as Schema, sample.body), []);
        }
      });

      test('the reader accepts every member the schema names', () => {
        for (const sample of samples) {
          assert.equal(readerVerdict(route, sample.body), 'accepted');
        }
      });

      test('every member the reader reads is in the schema, and it reads every one', () => {
        const read = new Set<string>();
        const declared = new Set<string>();
        for (const sample of samples) {
          route.parse(sample.body);
          sample.read.forEach((p) => read.add(memberPath(p)));
          sample.memberPaths.forEach((p) => declared.add(p));
        }
        assert.deepEqual(
          [...declared].filter((p) => !read.has(p)).sort(),
          [],
          'declared, not read',
        );
        // A member read but not declared may only be read to refuse it with a better message
        // (a schedule's task.deadline_at): given, it must be refused at its own path.
        for (const extra of [...read].filter((p) => !declared.has(p))) {
          const parent = extra.slice(0, extra.lastIndexOf('.'));
          const key = extra.slice(extra.lastIndexOf('.') + 1);
          const [sample] = samples;
          assert.ok(sample && !parent.includes('[]'), `${extra} is read but not declared`);
          const verdict = readerVerdict(route, withUnknownMember(sample.body, parent, key));
          assert.match(verdict, /^invalid_argument @ /, `${extra} is read and accepted`);
          assert.ok(verdict.includes(extra), verdict);
        }
      });

      test('an unknown member is refused by the reader and by the schema, at its path', () => {
        for (const sample of samples) {
          for (const target of objectPaths(sample.body)) {
            const body = withUnknownMember(sample.body, target);
            const verdict = readerVerdict(route, body);
            assert.match(verdict, /^invalid_argument @ /, `reader, unknown member at ${target}`);
            assert.ok(verdict.includes(`${target}.zz_unknown`), verdict);
            assert.notDeepEqual(schemaErrors(schema, body), [], `schema at ${target}`);
          }
        }
      });
    });
  }

  test('a route without a body takes none or {} and refuses any member', () => {
    for (const route of withoutBody) {
      assert.equal(readerVerdict(route, undefined), 'accepted', name(route));
      assert.equal(readerVerdict(route, new Map()), 'accepted', name(route));
      const verdict = readerVerdict(route, new Map([['x', true]]));
      assert.match(verdict, /^invalid_argument @ \$\.x/, name(route));
    }
  });

  test('the answer check of the test servers refuses a presenter that drifts', async () => {
    const [getQueue] = checkedRoutes(allRoutes.filter((r) => r.contract.id === 'getApplication'));
    assert.ok(getQueue?.handle);
    const fake = (body: unknown): Route => ({
      ...allRoutes.find((r) => r.contract.id === 'getApplication')!,
      handle: () => Promise.resolve({ body }),
    });
    const application = {
      name: 'shop',
      id: '1',
      disabled: false,
      revision: '1',
      quota: { max_active_tasks: 10 },
      created_at: '2026-11-29T20:30:11.123456Z',
      updated_at: '2026-11-29T20:30:11.123456Z',
    };
    const ctx = {} as RouteContext;
    const [good] = checkedRoutes([fake({ application })]);
    await good?.handle?.(ctx, undefined);
    for (const drifted of [
      { application: { ...application, extra: 1 } },
      { application: { ...application, id: 1 } },
      { application: { ...application, created_at: 'yesterday' } },
    ]) {
      const [bad] = checkedRoutes([fake(drifted)]);
      await assert.rejects(async () => bad?.handle?.(ctx, undefined), /does not match/);
    }
  });
});
