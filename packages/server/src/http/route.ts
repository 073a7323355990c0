/**
 * A route is a row of a table (STYLE.md §4): a contract from `@weave/sdk/protocol` (method,
 * path, scope, body and answer schemas), a reader that turns the body into the handler's input,
 * and a handler that calls services inside the request's transaction and returns the answer.
 * The answer is typed by the contract, so a presenter that drifts from the wire shape does not
 * compile; the OpenAPI document is built from the same contracts.
 */
import type { JsonValue } from '@weave/json';
import type { AnswerOf, RouteContract } from '@weave/sdk/protocol';
import type { Principal } from '../auth/principal.js';
import type { TaskNotifier } from '../pulse/task-notifier.js';
import type { Database, Tx } from '../store/with-tx.js';
import { expectObject, rejectUnknown } from './fields.js';

export interface RouteContext {
  readonly tx: Tx;
  readonly principal: Principal;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string | undefined>>;
  readonly requestId: string;
  /** Wakes local long-polling claims; call it from `tx.afterCommit`. */
  readonly notifier: TaskNotifier;
  readonly settings: RouteSettings;
}

/** Server settings the routes read. */
export interface RouteSettings {
  /** Active workflow instances allowed per namespace (seed 002 §4: 10,000; lower in tests). */
  readonly maxActiveInstances: number;
  /** The longest buffer window (`ttl`) a signal may ask for (docs/design/signals.md §2). */
  readonly maxSignalTtlMs: number;
}

/**
 * For a route that must not hold one transaction for its whole run (the long-polls): the request
 * is authenticated in its own short transaction, then the handler runs its own short
 * transactions through services that take the database.
 */
export interface SessionContext extends Omit<RouteContext, 'tx'> {
  readonly database: Database;
  /** Aborted when the client goes away before the answer is sent. */
  readonly signal: AbortSignal;
}

/**
 * For a route whose calls share transactions with other calls of their kind (group commit,
 * docs/design/hot-path.md): the handler hands its work to a group with an `admit` step that
 * runs inside the shared transaction, first: `ctx.admit(tx)` authenticates the request, checks
 * its namespace and scope and reads its body, exactly as a transactional route would, and
 * throws what it would. A request with an `Idempotency-Key` takes the transactional path.
 */
export interface GroupedContext extends Omit<SessionContext, 'principal'> {
  admit<I>(tx: Tx): Promise<{ readonly principal: Principal; readonly input: I }>;
  /**
   * The request body as sent, not yet authenticated or checked: only for hints that change no
   * outcome (the worker id a group waits for, worker-calls.ts). Everything else reads `admit`'s
   * input.
   */
  readonly unchecked: JsonValue | undefined;
}

export interface SharedSetting {
  /** The group's name in metrics (`weave_group_commit_items{group}`). */
  readonly name: string;
  readonly maxRequests: number;
}

/** Short requests (a submit, a heartbeat): many per shared transaction. */
export const SHARE_SHORT: SharedSetting = { name: 'shared_short', maxRequests: 32 };

/**
 * Requests that may be long and hold a hot row (a Start holds its application's quota row, and
 * one of a PARALLEL of 100 writes 100 tasks): a few per shared transaction, so a group does not
 * hold the row for the sum of many (docs/benchmarks.md, workflow run 4, S4).
 */
export const SHARE_LONG: SharedSetting = { name: 'shared_long', maxRequests: 4 };

export interface Answer<T> {
  /** One of the contract's `otherStatuses` instead of its `status` (e.g. 200 for an existing object). */
  readonly status?: 200 | 201 | 202;
  /** Plain JS or exact-JSON values; written with @weave/json. */
  readonly body: T;
  /**
   * What an idempotent replay returns instead of `body` (e.g. without a key that is shown
   * once). Defaults to `body`.
   */
  readonly replayBody?: T;
}

/** A registered route, its types erased so that different routes share one table. */
export interface Route {
  readonly contract: RouteContract;
  /** The body reader: exact JSON → the handler's input; `invalid_argument` with the JSON path. */
  readonly parse: (body: JsonValue | undefined) => unknown;
  /** The usual mode: runs inside the request's one transaction. */
  readonly handle?: (ctx: RouteContext, input: unknown) => Promise<Answer<unknown>>;
  /** Session mode (no idempotency receipt): see `SessionContext`. Exactly one of the two. */
  readonly session?: (ctx: SessionContext, input: unknown) => Promise<Answer<unknown>>;
  /**
   * Grouped mode, beside `handle` (which still serves requests with an Idempotency-Key): see
   * `GroupedContext`.
   */
  readonly grouped?: (ctx: GroupedContext) => Promise<Answer<unknown>>;
  /**
   * The request's transaction may be shared with other such requests arriving on this node at
   * the same time (group commit, run-route.ts): same steps, each under its own savepoint, at
   * most `maxRequests` in one transaction. Routes with the same limit share one group.
   */
  readonly shared?: SharedSetting;
  /**
   * Checks a replay must still pass before it answers the stored body (a Start replay re-checks
   * current rights and the version it pinned, A1.4). Throwing refuses the replay.
   */
  readonly checkReplay?: (ctx: RouteContext, storedBody: string) => Promise<void>;
}

type Reader<C extends RouteContract, I> = C['body'] extends object
  ? { readonly parse: (body: JsonValue | undefined) => I }
  : { readonly parse?: never };

interface ReplayCheck {
  readonly checkReplay?: (ctx: RouteContext, storedBody: string) => Promise<void>;
  /** See `Route.shared` (transactional routes only). */
  readonly shared?: SharedSetting;
}

type Handlers<C extends RouteContract, I> = ReplayCheck &
  (
    | {
        readonly handle: (ctx: RouteContext, input: I) => Promise<Answer<AnswerOf<C>>>;
        readonly grouped?: (ctx: GroupedContext) => Promise<Answer<AnswerOf<C>>>;
        readonly session?: never;
      }
    | {
        readonly session: (ctx: SessionContext, input: I) => Promise<Answer<AnswerOf<C>>>;
        readonly handle?: never;
        readonly grouped?: never;
      }
  );

/**
 * One route: a body reader is required exactly when the contract has a body; a route without
 * one accepts no body or `{}` and refuses any member.
 */
export function route<C extends RouteContract, I = undefined>(
  contract: C,
  definition: Reader<C, I> & Handlers<C, I>,
): Route {
  const parse = (definition.parse as Route['parse'] | undefined) ?? parseNoBody;
  const replay =
    definition.checkReplay === undefined ? {} : { checkReplay: definition.checkReplay };
  if (definition.handle === undefined) {
    return { contract, parse, session: definition.session as NonNullable<Route['session']> };
  }
  const grouped =
    definition.grouped === undefined
      ? {}
      : { grouped: definition.grouped as NonNullable<Route['grouped']> };
  return {
    contract,
    parse,
    handle: definition.handle as NonNullable<Route['handle']>,
    ...replay,
    ...grouped,
    ...(definition.shared === undefined ? {} : { shared: definition.shared }),
  };
}

function parseNoBody(body: JsonValue | undefined): undefined {
  if (body !== undefined) {
    rejectUnknown(expectObject(body), []);
  }
  return undefined;
}
